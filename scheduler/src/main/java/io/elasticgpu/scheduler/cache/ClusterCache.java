package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.CardHolding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What the extender knows of the cluster, fed by the informers and by its own binds and filter decisions. Its monitor
 * is the one lock under which its {@link Nodes}, {@link Pods}, {@link Claims} and {@link Assumptions} are touched, held
 * for microseconds without I/O; each filter, prioritize and bind reads one immutable {@link #snapshot}. Thread-safe.
 */
public final class ClusterCache {

    private final Pods pods;
    private final Claims claims;
    private final Assumptions assumptions = new Assumptions();
    private final Nodes nodes;
    private final RecentPods sent = new RecentPods(1024); // thread-safe itself: used without the lock
    private volatile Consumer<String> onFreed = node -> {};

    /**
     * @param asksGpu        which pods are Elastic GPU's (their objects are kept for binding)
     * @param memoryBlockMib the node agents' memory block: a DRA claim consuming all a card offers is the card alone
     */
    public ClusterCache(Predicate<Pod> asksGpu, long memoryBlockMib) {
        this.pods = new Pods(asksGpu);
        this.claims = new Claims(memoryBlockMib);
        // what a pod's uid or a claim's id counts: as assumed while a bind is unobserved, else as the informer shows it
        this.nodes = new Nodes(
                id -> Stream.of(assumptions.assumed(id), pods.observed(id), claims.observed(id))
                        .filter(Objects::nonNull)
                        .findFirst()
                        .orElse(null),
                node -> onFreed.accept(node));
    }

    /** Tells {@code listener} each node where something may have become free; called under the lock: must not block. */
    public void onFreed(Consumer<String> listener) {
        this.onFreed = listener;
    }

    /** The cluster as of now, immutable: what one filter, prioritize or bind decides on. */
    public synchronized Snapshot snapshot() {
        return Snapshot.of(nodes, pods, claims, assumptions);
    }

    /** What the cache believes now, for {@code /debug/cache}: O(nodes + holders), under the lock. */
    public synchronized CacheDump dump() {
        return CacheDump.of(nodes, pods, claims, assumptions);
    }

    /** The pods and claims the expected workload is estimated from, as of now. */
    public synchronized Workload workload() {
        return new Workload(pods.gpuPods(), pods.hostWorkload(n -> nodes.node(n) != null), claims.byKey());
    }

    public synchronized void upsertNode(io.fabric8.kubernetes.api.model.Node k8s) {
        nodes.upsert(k8s);
    }

    public synchronized void deleteNode(String name) {
        nodes.delete(name);
    }

    /** A pod that stopped holding cards (Succeeded, Failed) frees them at once, as if deleted. */
    public synchronized void upsertPod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (CardHolding.holdsCards(pod)) {
            pods.seen(pod, assumptions.assumed(uid) != null, nodes::dra).ifPresent(b -> assumptions.seenBound(uid, b));
        } else {
            gone(pod);
        }
        nodes.recount(uid);
    }

    public synchronized void deletePod(Pod pod) {
        gone(pod);
        nodes.recount(pod.getMetadata().getUid());
    }

    /** An allocated claim of ours holds its cards (those its pods' holds had); one not allocated holds nothing. */
    public synchronized void upsertClaim(ResourceClaim claim) {
        claims.seen(claim, nodes::node).stream()
                .filter(assumptions::cardsHeldByClaims)
                .forEach(nodes::recount);
        nodes.recount(Claims.id(claim));
    }

    public synchronized void deleteClaim(ResourceClaim claim) {
        claims.deleted(claim);
        nodes.recount(Claims.id(claim));
    }

    /** Counts a bind's cards for pod {@code uid} until it is seen with its allocation or forgotten. */
    public synchronized void assume(String uid, PodHolding holding) {
        assumptions.assume(uid, holding);
        nodes.recount(uid);
    }

    /** Counts a filter's decision until a bind assumes it, the pod is seen bound, or it is released or lapses. */
    public synchronized void hold(String uid, PodHolding holding, Hold hold) {
        assumptions.hold(uid, holding, hold);
        nodes.recount(uid);
    }

    /** Drops pod {@code uid}'s hold, as before the pod is decided again. */
    public synchronized void release(String uid) {
        if (assumptions.release(uid)) {
            nodes.recount(uid);
        }
    }

    /** Drops each hold that lapsed by {@code nowNanos}: kube-scheduler chose another way or gave up. */
    public synchronized void expireHolds(long nowNanos) {
        assumptions.lapsed(nowNanos).stream().filter(assumptions::release).forEach(nodes::recount);
    }

    /** Drops what {@link #assume} or {@link #hold} counted, after a bind that failed. */
    public synchronized void forget(String uid) {
        if (assumptions.forget(uid)) {
            nodes.recount(uid);
        }
    }

    /** {@code node} as preemption weighs it, and where else {@code uids} are counted; null when it has no cards. */
    public synchronized NodeHolders holders(String node, java.util.Set<String> uids) {
        return NodeHolders.of(node, nodes, pods, assumptions.holds(), sent, uids);
    }

    /** Remembers a pod kube-scheduler sent in a call: {@link #pod} finds it before the informer does. */
    public void sent(Pod pod) {
        sent.add(pod);
    }

    /** A GPU pod by uid as the informer shows it, else as kube-scheduler last sent it (the informer may lag). */
    public synchronized Optional<Pod> pod(String namespace, String name, String uid) {
        return pods.gpuPod(namespace, name)
                .filter(p -> uid.equals(p.getMetadata().getUid()))
                .or(() -> sent.get(uid));
    }

    public synchronized PodPresence podStatus(String uid) {
        return pods.status(uid);
    }

    /** The node pod {@code uid} is seen bound to, if any. */
    public synchronized Optional<String> boundNode(String uid) {
        return pods.boundNode(uid);
    }

    private void gone(Pod pod) {
        pods.gone(pod);
        assumptions.forget(pod.getMetadata().getUid());
    }
}
