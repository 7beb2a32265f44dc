package io.elasticgpu.scheduler.cache;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What this replica counts for pods before the cluster shows it: a bind's cards from the moment it is assumed, and a
 * filter's decision from the moment it is held, until the pod is seen with its allocation, the bind fails (forget),
 * the pod is decided again (release) or the hold lapses (expire). What is assumed for a pod counts instead of what
 * the informer shows of it.
 *
 * <p>Not thread-safe: only {@link ClusterCache} touches it, under its lock. Methods that change what a pod counts say
 * so by their result, and the caller recounts the pod on its node.
 */
final class Assumptions {

    private final Map<String, PodHolding> assumed = new HashMap<>();
    /**
     * Filter decisions not yet confirmed by a bind: the allocation chosen and when the hold lapses. Each is also in
     * {@link #assumed}, so the next pods are decided against it from the moment it is made.
     */
    private final Map<String, Hold> holds = new HashMap<>();
    /** An immutable copy of {@link #holds}, made when asked for after a change; null until then. */
    private Map<String, Hold> copy = Map.of();

    /** Everything assumed, by pod uid. */
    Map<String, PodHolding> assumed() {
        return Map.copyOf(assumed);
    }

    /** What is assumed for pod {@code uid}, or null when it counts as the informer shows it. */
    PodHolding assumed(String uid) {
        return assumed.get(uid);
    }

    /** Counts {@code holding} for pod {@code uid} until the pod is seen with its allocation or forgotten. */
    void assume(String uid, PodHolding holding) {
        unhold(uid);
        assumed.put(uid, holding);
    }

    /** Counts {@code holding} for pod {@code uid} as a filter decided it, until {@link Hold#expiresAtNanos}. */
    void hold(String uid, PodHolding holding, Hold hold) {
        holds.put(uid, hold);
        copy = null;
        assumed.put(uid, holding);
    }

    /** Every hold by pod uid: immutable. */
    Map<String, Hold> holds() {
        if (copy == null) {
            copy = Map.copyOf(holds);
        }
        return copy;
    }

    /** Drops pod {@code uid}'s hold; true when it had one (what it counts changed). */
    boolean release(String uid) {
        if (unhold(uid) == null) {
            return false;
        }
        assumed.remove(uid);
        return true;
    }

    /**
     * The pods whose hold lapsed by {@code nowNanos}, to {@link #release}: kube-scheduler chose another way or gave up.
     * */
    List<String> lapsed(long nowNanos) {
        return holds.entrySet().stream()
                .filter(e -> e.getValue().expiresAtNanos() - nowNanos < 0)
                .map(Map.Entry::getKey)
                .toList();
    }

    /**
     * Drops what {@link #assume} or {@link #hold} counted; true when something was assumed (what it counts changed). */
    boolean forget(String uid) {
        unhold(uid);
        return assumed.remove(uid) != null;
    }

    /**
     * The informer shows pod {@code uid} bound: with an allocation of ours its assumption ends (the observed one is
     * the same); a pod without GPUs, or a DRA pod, was bound by kube-scheduler itself and its filter hold ends too
     * (the cards of a DRA pod are its claims', counted as they are allocated).
     */
    void seenBound(String uid, Pods.Bound bound) {
        Hold hold = holds.get(uid);
        if (bound.allocation() != null || hold != null && (hold.allocation() == null || !bound.asksGpu())) {
            assumed.remove(uid);
            unhold(uid);
        }
    }

    /**
     * A DRA pod's filter hold keeps its CPU and memory but no longer its cards once its claim is allocated: the claim
     * holds them. True when pod {@code uid} had such a hold (what it counts changed).
     */
    boolean cardsHeldByClaims(String uid) {
        PodHolding held = holds.containsKey(uid) ? assumed.get(uid) : null;
        if (held == null) {
            return false;
        }
        assumed.put(uid, held.hostOnly());
        return true;
    }

    private Hold unhold(String uid) {
        Hold removed = holds.remove(uid);
        if (removed != null) {
            copy = null;
        }
        return removed;
    }
}
