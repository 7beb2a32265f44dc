package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.CardHolding;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Nodes with their cards and what every pod holds on them: pods bound to a node count their CPU and memory, and
 * their cards when their allocation annotation names them; this replica's binds in flight count as soon as they
 * are assumed, until the pod is seen with its annotation. Deleted, Succeeded and Failed pods free everything at once.
 *
 * <p>Thread-safe: informer callbacks and HTTP handlers call in concurrently; every method holds one lock for
 * microseconds and does no I/O. Readers get immutable {@link NodeState}s.
 */
public final class ClusterCache {

    /** Whether a pod is known here, and how. */
    public enum PodStatus {
        /** Bound or waiting, not terminal. */
        LIVE,
        /** Deleted, Succeeded or Failed, as far as this cache has seen. */
        GONE,
        /** Never seen (the informer may lag the API). */
        UNKNOWN
    }

    /**
     * A node's state and a slot for what readers derive from exactly this state (the decisions keep their policy
     * scores there): a new state comes with an empty slot, so derived values never outlive what they came from.
     */
    public record Entry(NodeState state, AtomicReference<Object> derived) {
        Entry(NodeState state) {
            this(state, new AtomicReference<>());
        }
    }

    /** The largest card and the node with most cards, among healthy cards: what any pod can hope for at most. */
    public record Limits(long maxCardMemoryMib, int maxCardsPerNode) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Pods pods;
    private final Claims claims;
    private final Assumptions assumptions = new Assumptions();
    private final Nodes nodes = new Nodes(this::counts, node -> this.onFreed.accept(node));
    /** Pods kube-scheduler sent in its calls, for when it calls before the informer shows them. */
    private final RecentPods sent = new RecentPods(1024);
    private volatile Consumer<String> onFreed = node -> { };

    /** @param asksGpu which pods are Elastic GPU's (their objects are kept for binding) */
    public ClusterCache(Predicate<Pod> asksGpu) {
        this(asksGpu, 1);
    }

    /** @param memoryBlockMib the node agents' memory block: a DRA claim consuming all a card offers is the card alone */
    public ClusterCache(Predicate<Pod> asksGpu, long memoryBlockMib) {
        this.pods = new Pods(asksGpu);
        this.claims = new Claims(memoryBlockMib);
    }

    /**
     * Calls {@code listener} with a node's name whenever something there may have become free: a pod left it or
     * stopped holding cards, or the node itself appeared or changed. Called under the cache's lock: must not block.
     */
    public void onFreed(Consumer<String> listener) {
        this.onFreed = listener;
    }

    // ---- informer side ----

    public void upsertNode(io.fabric8.kubernetes.api.model.Node k8s) {
        locked(() -> nodes.upsert(k8s));
    }

    public void deleteNode(String name) {
        locked(() -> nodes.delete(name));
    }

    public void upsertPod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        locked(() -> {
            if (!CardHolding.holdsCards(pod)) {
                gone(pod);
                return;
            }
            pods.seen(pod, assumptions.assumed(uid) != null, nodes::dra).ifPresent(b -> assumptions.seenBound(uid, b));
            nodes.recount(uid);
        });
    }

    public void deletePod(Pod pod) {
        locked(() -> gone(pod));
    }

    /** Counts what an allocated claim of ours holds; a claim not (or no longer) allocated holds nothing. */
    public void upsertClaim(ResourceClaim claim) {
        locked(() -> {
            for (String uid : claims.seen(claim, nodes::node)) {
                if (assumptions.cardsHeldByClaims(uid)) {
                    nodes.recount(uid);
                }
            }
            nodes.recount(Claims.id(claim));
        });
    }

    public void deleteClaim(ResourceClaim claim) {
        locked(() -> {
            claims.deleted(claim);
            nodes.recount(Claims.id(claim));
        });
    }

    /** Every ResourceClaim as last seen: with the pods, the workload the fragmentation-aware policies expect. */
    public List<ResourceClaim> claims() {
        return read(claims::all);
    }

    /** A ResourceClaim as last seen. */
    public Optional<ResourceClaim> claim(String namespace, String name) {
        return claim(key(namespace, name));
    }

    /** A ResourceClaim as last seen, by namespace/name as {@link HostPod#claims()} names it. */
    public Optional<ResourceClaim> claim(String key) {
        return read(() -> claims.claim(key));
    }

    // ---- binding side ----

    /** Counts {@code contribution} for pod {@code uid} until the pod is seen with its allocation or forgotten. */
    public void assume(String uid, Contribution contribution) {
        locked(() -> {
            assumptions.assume(uid, contribution);
            nodes.recount(uid);
        });
    }

    /**
     * Counts {@code contribution} for pod {@code uid} as a filter decided it, before kube-scheduler binds: until a
     * bind {@linkplain #assume assumes} it, the pod is seen with its allocation or forgotten, another hold replaces
     * it, or {@code expiresAtNanos} (on the clock {@link #expireHolds} is given) passes.
     */
    public void hold(String uid, Contribution contribution, Hold hold) {
        locked(() -> {
            assumptions.hold(uid, contribution, hold);
            nodes.recount(uid);
        });
    }

    /** The filter's decision held for pod {@code uid}, if any. */
    public Optional<Hold> held(String uid) {
        return read(() -> assumptions.held(uid));
    }

    /** Drops pod {@code uid}'s hold, as before the pod is decided again. */
    public void release(String uid) {
        locked(() -> release0(uid));
    }

    /** Drops every hold that lapsed by {@code nowNanos}: kube-scheduler chose another way or gave up. */
    public void expireHolds(long nowNanos) {
        locked(() -> assumptions.lapsed(nowNanos).forEach(this::release0));
    }

    /** Drops what {@link #assume} or {@link #hold} counted, after a bind that failed. */
    public void forget(String uid) {
        locked(() -> {
            if (assumptions.forget(uid)) {
                nodes.recount(uid);
            }
        });
    }

    // ---- readers ----

    /** A node's state, or null when it has no cards. */
    public NodeState state(String name) {
        Entry e = entry(name);
        return e == null ? null : e.state();
    }

    /** A node's state with its slot for derived values, or null when it has no cards. */
    public Entry entry(String name) {
        return read(() -> nodes.entries().get(name));
    }

    /** Every node with cards and its state. */
    public Map<String, NodeState> states() {
        Map<String, Entry> entries = read(nodes::entries);
        Map<String, NodeState> out = LinkedHashMap.newLinkedHashMap(entries.size());
        entries.forEach((name, e) -> out.put(name, e.state()));
        return out;
    }

    public Optional<Node> node(String name) {
        return read(() -> Optional.ofNullable(nodes.node(name)));
    }

    /** The latest object of a GPU pod. */
    public Optional<Pod> pod(String namespace, String name) {
        return read(() -> pods.gpuPod(namespace, name));
    }

    /** Remembers a pod kube-scheduler sent in a call: {@link #pod(String, String, String)} finds it before the informer does. */
    public void sent(Pod pod) {
        sent.add(pod);
    }

    /** A pod by uid as the informer shows it, else as kube-scheduler last sent it (the informer may lag). */
    public Optional<Pod> pod(String namespace, String name, String uid) {
        return pod(namespace, name).filter(p -> uid.equals(p.getMetadata().getUid())).or(() -> sent.get(uid));
    }

    public PodStatus podStatus(String uid) {
        return read(() -> pods.status(uid));
    }

    /** The node pod {@code uid} is seen bound to, if any. */
    public Optional<String> boundNode(String uid) {
        return read(() -> pods.boundNode(uid));
    }

    /** Every GPU pod the cache knows, bound or waiting: the workload as the cluster shows it. */
    public List<Pod> gpuPods() {
        return read(pods::gpuPods);
    }

    /**
     * The pods that ask no GPU by resource name but belong to the GPU pods' workload: those bound to a node with
     * cards, those pending for a scheduler that GPU pods use (they will land among the GPU pods), and those pending
     * with ResourceClaims (DRA pods, whose cards come through their claims). With the GPU pods, the workload the
     * fragmentation-aware policies expect: the FGD paper estimates it from every pod of its cluster, and left out,
     * pods without GPUs cost 0.4 points of allocation in a replay of the openb trace.
     */
    public List<HostPod> hostWorkload() {
        return read(() -> pods.hostWorkload(n -> nodes.node(n) != null));
    }

    /** How many pods the workload estimate is made from at most: GPU pods and pods without GPUs. */
    public int workloadPodCount() {
        return read(() -> pods.count() + claims.count());
    }

    public Limits limits() {
        return read(nodes::limits);
    }

    /**
     * A pod bound to {@code node} that asks GPUs but whose cards are unknown (its allocation is missing, unreadable or
     * names another node), as namespace/name; empty when every holder there is known.
     */
    public Optional<String> unknownHolder(String node) {
        return read(() -> Optional.ofNullable(pods.unknownHolders().get(node)));
    }

    /** Bound GPU pods seen without an allocation annotation since start. */
    public int unaccounted() {
        return read(pods::unaccounted);
    }

    /** Pods whose recorded cards wait for a deletion this cache has not seen yet. */
    public int waitingToBeCounted() {
        return read(nodes::waiting);
    }

    /** How the cache names a pod or a claim, and {@link HostPod#claims()} a claim: namespace/name. */
    public static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    // ---- internals, under the lock ----

    private void gone(Pod pod) {
        String uid = pod.getMetadata().getUid();
        pods.gone(uid, key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        assumptions.forget(uid);
        nodes.recount(uid);
    }

    private void release0(String uid) {
        if (assumptions.release(uid)) {
            nodes.recount(uid);
        }
    }

    /** As assumed while a bind is in flight or unobserved, else as observed. */
    private Contribution counts(String id) {
        Contribution mine = assumptions.assumed(id);
        if (mine != null) {
            return mine;
        }
        Contribution pod = pods.observed(id);
        return pod != null ? pod : claims.observed(id);
    }

    private void locked(Runnable write) {
        lock.lock();
        try {
            write.run();
        } finally {
            lock.unlock();
        }
    }

    private <T> T read(Supplier<T> reader) {
        lock.lock();
        try {
            return reader.get();
        } finally {
            lock.unlock();
        }
    }
}
