package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.Allocation;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.CardHolding;
import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes with their cards and what every pod holds on them: pods bound to a node count their CPU and memory, and
 * their cards when their allocation annotation names them; this replica's binds in flight count as soon as they
 * are assumed, until the pod is seen with its annotation. Deleted, Succeeded and Failed pods free everything at once.
 *
 * <p>Thread-safe: informer callbacks and HTTP handlers call in concurrently; every method holds one lock for
 * microseconds and does no I/O. Readers get immutable {@link NodeState}s.
 */
public final class ClusterCache {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterCache.class);

    /** Whether a pod is known here, and how. */
    public enum PodStatus {
        /** Bound or waiting, not terminal. */
        LIVE,
        /** Deleted, Succeeded or Failed, as far as this cache has seen. */
        GONE,
        /** Never seen (the informer may lag the API). */
        UNKNOWN
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Node> nodes = new HashMap<>();
    /** What {@link NodeConversion} read of each node last time; informer callbacks come one at a time. */
    private final Map<String, List<Object>> nodeInputs = new java.util.concurrent.ConcurrentHashMap<>();
    /** Written under the lock, read without it: the verbs look up thousands of nodes per call. */
    private final Map<String, Entry> states = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> podsByNode = new HashMap<>();
    private final Map<String, Pod> pods = new HashMap<>();
    /** Pods that ask no GPU, as much of them as the workload estimate needs. */
    private final Map<String, HostPod> hostPods = new HashMap<>();
    private final Map<String, String> uidByName = new HashMap<>();
    private final Set<String> gone = new HashSet<>();
    private final Set<String> live = new HashSet<>();
    private final Map<String, Contribution> observed = new HashMap<>();
    private final Map<String, Contribution> assumed = new HashMap<>();
    /**
     * Filter decisions not yet confirmed by a bind: the allocation chosen and when the hold lapses. Each is also in
     * {@link #assumed}, so the next pods are decided against it from the moment it is made.
     */
    private final Map<String, Hold> holds = new HashMap<>();
    private final Map<String, Contribution> applied = new HashMap<>();
    /**
     * Pods whose recorded cards did not fit their node's state yet, by node: this cache saw another replica reuse a
     * card before it saw the deletion that freed it. Retried whenever something leaves that node.
     */
    private final Map<String, Set<String>> waiting = new HashMap<>();
    /**
     * Bound GPU pods whose cards this cache cannot know (no allocation it can read, or one naming another node), by
     * node: pod uid to namespace/name. Their node gets no GPU pod until they are fixed or gone: counting them as
     * holding nothing could hand their cards out twice.
     */
    private final Map<String, Map<String, String>> unknownHolders = new ConcurrentHashMap<>();
    /**
     * ResourceClaims by namespace/name: what DRA pods ask and, once allocated, what they hold. An allocated claim of
     * ours counts on its node under {@value #CLAIM}{@code <uid>} (in {@link #observed}), beside the pods, so that cards
     * given through DRA and through the device plugin are one ledger per card.
     */
    private final Map<String, ResourceClaim> claims = new ConcurrentHashMap<>();
    /** Pods kube-scheduler sent in its calls, for when it calls before the informer shows them. */
    private final RecentPods sent = new RecentPods(1024);
    private static final String CLAIM = "claim:";
    private final Predicate<Pod> asksGpu;
    private final long memoryBlockMib;
    private volatile Consumer<String> onFreed = node -> { };
    private volatile Limits limits = new Limits(0, 0);
    private int unaccounted;

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

    /** @param asksGpu which pods are Elastic GPU's (their objects are kept for binding) */
    public ClusterCache(Predicate<Pod> asksGpu) {
        this(asksGpu, 1);
    }

    /** @param memoryBlockMib the node agents' memory block: a DRA claim consuming all a card offers is the card alone */
    public ClusterCache(Predicate<Pod> asksGpu, long memoryBlockMib) {
        this.asksGpu = asksGpu;
        this.memoryBlockMib = memoryBlockMib;
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
        String name = k8s.getMetadata().getName();
        // Most node updates are kubelet's status heartbeats: nothing this cache reads has changed.
        List<Object> read = NodeConversion.inputs(k8s);
        if (read.equals(nodeInputs.put(name, read))) {
            return;
        }
        Optional<Node> converted;
        try {
            converted = NodeConversion.convert(k8s);
        } catch (IllegalArgumentException e) {
            LOG.warn("node={} ignored: {}", name, e.getMessage());
            converted = Optional.empty();
        }
        lock.lock();
        try {
            if (converted.isEmpty()) {
                nodes.remove(name);
                states.remove(name);
            } else if (!converted.get().equals(nodes.get(name))) {
                nodes.put(name, converted.get());
                rebuild(name);
                onFreed.accept(name);
            } else {
                return;
            }
            recomputeLimits();
        } finally {
            lock.unlock();
        }
    }

    public void deleteNode(String name) {
        nodeInputs.remove(name);
        lock.lock();
        try {
            nodes.remove(name);
            states.remove(name);
            recomputeLimits();
        } finally {
            lock.unlock();
        }
    }

    public void upsertPod(Pod pod) {
        String uid = pod.getMetadata().getUid();
        String key = key(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        boolean terminal = !CardHolding.holdsCards(pod);
        lock.lock();
        try {
            if (terminal) {
                forgetPod(uid, key);
                return;
            }
            gone.remove(uid);
            live.add(uid);
            uidByName.put(key, uid);
            String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
            if (asksGpu.test(pod)) {
                pods.put(uid, pod);
            } else {
                PodResources.Totals t = PodResources.of(pod);
                List<String> claimKeys = DraAsks.claims(pod).stream().filter(c -> c.claimName() != null)
                        .map(c -> key(pod.getMetadata().getNamespace(), c.claimName())).toList();
                hostPods.put(uid, new HostPod(pod.getSpec() == null ? null : pod.getSpec().getSchedulerName(),
                        node == null || node.isEmpty() ? null : node, t.cpuMilli(), t.memoryMib(), claimKeys));
            }
            if (node == null || node.isEmpty()) {
                observed.remove(uid);
            } else {
                Allocation allocation = allocation(pod, node);
                // On a DRA node a pod asking our extended resource holds the claim kube-scheduler made for it.
                boolean unknown = allocation == null && asksGpu.test(pod) && !assumed.containsKey(uid)
                        && !(nodes.containsKey(node) && NodeLabels.dra(nodes.get(node).labels()));
                if (unknown && unknownHolders.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).put(uid, key) == null) {
                    unaccounted++;
                    LOG.warn("pod={} on node={} asks GPUs but carries no allocation this extender can read; no GPU pod goes"
                            + " to the node until it is fixed or gone", key, node);
                } else if (!unknown) {
                    forgetUnknown(uid);
                }
                observed.put(uid, Contribution.of(node, PodResources.of(pod), allocation));
                // A pod without GPUs or with DRA claims was bound by kube-scheduler itself: its hold ends here (the
                // cards of a DRA pod are its claims', counted as they are allocated).
                Hold hold = holds.get(uid);
                if (allocation != null || hold != null && (hold.allocation() == null || !asksGpu.test(pod))) {
                    assumed.remove(uid);
                    holds.remove(uid);
                }
            }
            reapply(uid);
        } finally {
            lock.unlock();
        }
    }

    public void deletePod(Pod pod) {
        lock.lock();
        try {
            forgetPod(pod.getMetadata().getUid(), key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
        } finally {
            lock.unlock();
        }
    }

    /** Counts what an allocated claim of ours holds; a claim not (or no longer) allocated holds nothing. */
    public void upsertClaim(ResourceClaim claim) {
        String id = CLAIM + claim.getMetadata().getUid();
        claims.put(key(claim.getMetadata().getNamespace(), claim.getMetadata().getName()), claim);
        List<DraShares.DraShare> shares = DraShares.of(claim);
        lock.lock();
        try {
            if (shares.isEmpty()) {
                observed.remove(id);
            } else {
                String node = shares.getFirst().node();
                observed.put(id, Contribution.ofClaim(node, shares, nodes.get(node), memoryBlockMib));
                reservedPods(claim).forEach(this::cardsHeldByClaims);
            }
            reapply(id);
        } finally {
            lock.unlock();
        }
    }

    public void deleteClaim(ResourceClaim claim) {
        String uid = claim.getMetadata().getUid();
        claims.computeIfPresent(key(claim.getMetadata().getNamespace(), claim.getMetadata().getName()),
                (k, known) -> uid.equals(known.getMetadata().getUid()) ? null : known);
        lock.lock();
        try {
            observed.remove(CLAIM + uid);
            reapply(CLAIM + uid);
        } finally {
            lock.unlock();
        }
    }

    /** Every ResourceClaim as last seen: with the pods, the workload the fragmentation-aware policies expect. */
    public List<ResourceClaim> claims() {
        return List.copyOf(claims.values());
    }

    /** A ResourceClaim as last seen. Lock-free. */
    public Optional<ResourceClaim> claim(String namespace, String name) {
        return claim(key(namespace, name));
    }

    /** A ResourceClaim as last seen, by namespace/name as {@link HostPod#claims()} names it. Lock-free. */
    public Optional<ResourceClaim> claim(String key) {
        return Optional.ofNullable(claims.get(key));
    }

    private static List<String> reservedPods(ResourceClaim claim) {
        List<ResourceClaimConsumerReference> refs = claim.getStatus() == null ? null : claim.getStatus().getReservedFor();
        return refs == null ? List.of() : refs.stream().filter(r -> "pods".equals(r.getResource()) && r.getUid() != null)
                .map(ResourceClaimConsumerReference::getUid).toList();
    }

    /** A DRA pod's filter hold keeps its CPU and memory but no longer its cards: its allocated claim holds them. */
    private void cardsHeldByClaims(String uid) {
        Contribution held = holds.containsKey(uid) ? assumed.get(uid) : null;
        if (held != null) {
            assumed.put(uid, held.hostOnly());
            reapply(uid);
        }
    }

    // ---- binding side ----

    /** Counts {@code contribution} for pod {@code uid} until the pod is seen with its allocation or forgotten. */
    public void assume(String uid, Contribution contribution) {
        lock.lock();
        try {
            holds.remove(uid);
            assumed.put(uid, contribution);
            reapply(uid);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts {@code contribution} for pod {@code uid} as a filter decided it, before kube-scheduler binds: until a
     * bind {@linkplain #assume assumes} it, the pod is seen with its allocation or forgotten, another hold replaces
     * it, or {@code expiresAtNanos} (on the clock {@link #expireHolds} is given) passes.
     */
    public void hold(String uid, Contribution contribution, Hold hold) {
        lock.lock();
        try {
            holds.put(uid, hold);
            assumed.put(uid, contribution);
            reapply(uid);
        } finally {
            lock.unlock();
        }
    }

    /** The filter's decision held for pod {@code uid}, if any. */
    public Optional<Hold> held(String uid) {
        lock.lock();
        try {
            return Optional.ofNullable(holds.get(uid));
        } finally {
            lock.unlock();
        }
    }

    /** Drops pod {@code uid}'s hold, as before the pod is decided again. */
    public void release(String uid) {
        lock.lock();
        try {
            unhold(uid);
        } finally {
            lock.unlock();
        }
    }

    /** Takes back what a hold counted; the caller holds the lock. */
    private void unhold(String uid) {
        if (holds.remove(uid) != null) {
            assumed.remove(uid);
            reapply(uid);
        }
    }

    /** Drops every hold that lapsed by {@code nowNanos}: kube-scheduler chose another way or gave up. */
    public void expireHolds(long nowNanos) {
        lock.lock();
        try {
            List<String> lapsed = holds.entrySet().stream().filter(e -> e.getValue().expiresAtNanos() - nowNanos < 0)
                    .map(Map.Entry::getKey).toList();
            lapsed.forEach(this::unhold);
        } finally {
            lock.unlock();
        }
    }

    /** Drops what {@link #assume} or {@link #hold} counted, after a bind that failed. */
    public void forget(String uid) {
        lock.lock();
        try {
            holds.remove(uid);
            if (assumed.remove(uid) != null) {
                reapply(uid);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- readers ----

    /** A node's state, or null when it has no cards. Lock-free. */
    public NodeState state(String name) {
        Entry e = states.get(name);
        return e == null ? null : e.state();
    }

    /** A node's state with its slot for derived values, or null when it has no cards. Lock-free. */
    public Entry entry(String name) {
        return states.get(name);
    }

    /** Every node with cards and its state. */
    public Map<String, NodeState> states() {
        lock.lock();
        try {
            Map<String, NodeState> out = LinkedHashMap.newLinkedHashMap(states.size());
            states.forEach((name, e) -> out.put(name, e.state()));
            return out;
        } finally {
            lock.unlock();
        }
    }

    public Optional<Node> node(String name) {
        lock.lock();
        try {
            return Optional.ofNullable(nodes.get(name));
        } finally {
            lock.unlock();
        }
    }

    /** The latest object of a GPU pod. */
    public Optional<Pod> pod(String namespace, String name) {
        lock.lock();
        try {
            String uid = uidByName.get(key(namespace, name));
            return Optional.ofNullable(uid == null ? null : pods.get(uid));
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            if (gone.contains(uid)) {
                return PodStatus.GONE;
            }
            return live.contains(uid) ? PodStatus.LIVE : PodStatus.UNKNOWN;
        } finally {
            lock.unlock();
        }
    }

    /** The node pod {@code uid} is seen bound to, if any. */
    public Optional<String> boundNode(String uid) {
        lock.lock();
        try {
            Contribution c = observed.get(uid);
            return Optional.ofNullable(c == null ? null : c.node());
        } finally {
            lock.unlock();
        }
    }

    /** Every GPU pod the cache knows, bound or waiting: the workload as the cluster shows it. */
    public List<Pod> gpuPods() {
        lock.lock();
        try {
            return new ArrayList<>(pods.values());
        } finally {
            lock.unlock();
        }
    }

    /**
     * The pods that ask no GPU by resource name but belong to the GPU pods' workload: those bound to a node with
     * cards, those pending for a scheduler that GPU pods use (they will land among the GPU pods), and those pending
     * with ResourceClaims (DRA pods, whose cards come through their claims). With the GPU pods, the workload the
     * fragmentation-aware policies expect: the FGD paper estimates it from every pod of its cluster, and left out,
     * pods without GPUs cost 0.4 points of allocation in a replay of the openb trace.
     */
    public List<HostPod> hostWorkload() {
        lock.lock();
        try {
            Set<String> schedulers = new HashSet<>();
            pods.values().forEach(p -> schedulers.add(p.getSpec() == null ? null : p.getSpec().getSchedulerName()));
            List<HostPod> out = new ArrayList<>();
            for (HostPod h : hostPods.values()) {
                boolean pendingHere = schedulers.contains(h.scheduler()) || !h.claims().isEmpty();
                if (h.node() != null ? nodes.containsKey(h.node()) : pendingHere) {
                    out.add(h);
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** How many pods the workload estimate is made from at most: GPU pods and pods without GPUs. */
    public int workloadPodCount() {
        lock.lock();
        try {
            return pods.size() + hostPods.size() + claims.size();
        } finally {
            lock.unlock();
        }
    }

    public Limits limits() {
        return limits;
    }

    /**
     * A pod bound to {@code node} that asks GPUs but whose cards are unknown (its allocation is missing, unreadable or
     * names another node), as namespace/name; empty when every holder there is known.
     */
    public Optional<String> unknownHolder(String node) {
        if (unknownHolders.isEmpty()) {
            return Optional.empty(); // the filter asks for every node that fits: no lock, no allocation
        }
        return unknownHolders.getOrDefault(node, Map.of()).values().stream().sorted().findFirst();
    }

    /** Bound GPU pods seen without an allocation annotation since start. */
    public int unaccounted() {
        return unaccounted;
    }

    /** Pods whose recorded cards wait for a deletion this cache has not seen yet. */
    public int waitingToBeCounted() {
        lock.lock();
        try {
            return waiting.values().stream().mapToInt(Set::size).sum();
        } finally {
            lock.unlock();
        }
    }

    // ---- internals, under the lock ----

    private void forgetPod(String uid, String key) {
        gone.add(uid);
        if (gone.size() > 100_000) {
            gone.clear(); // a bound on memory: an unknown pod is asked about at the API, which is only slower
            gone.add(uid);
        }
        uidByName.remove(key, uid);
        forgetUnknown(uid);
        live.remove(uid);
        pods.remove(uid);
        hostPods.remove(uid);
        observed.remove(uid);
        assumed.remove(uid);
        holds.remove(uid);
        reapply(uid);
    }

    private void forgetUnknown(String uid) {
        unknownHolders.values().removeIf(byUid -> byUid.remove(uid) != null && byUid.isEmpty());
    }

    /** Replaces what pod {@code uid} counts on its node by what it should count now. */
    private void reapply(String uid) {
        Contribution old = applied.remove(uid);
        waiting.values().forEach(set -> set.remove(uid));
        if (old != null) {
            podsByNode.getOrDefault(old.node(), Set.of()).remove(uid);
            NodeState s = state(old.node());
            if (s != null) {
                states.put(old.node(), new Entry(old.removeFrom(s)));
            }
        }
        Contribution now = effective(uid);
        if (now != null) {
            podsByNode.computeIfAbsent(now.node(), k -> new HashSet<>()).add(uid);
            apply(uid, now);
        }
        if (old != null) {
            retryWaiting(old.node());
            if (now == null || !now.node().equals(old.node())) {
                onFreed.accept(old.node());
            }
        }
    }

    private void apply(String uid, Contribution c) {
        NodeState s = state(c.node());
        if (s == null) {
            applied.put(uid, c); // counted once the node has an inventory (see rebuild)
            return;
        }
        try {
            states.put(c.node(), new Entry(c.addTo(s)));
            applied.put(uid, c);
        } catch (IllegalStateException e) {
            LOG.debug("pod uid={} waits to be counted on node={}: {}", uid, c.node(), e.getMessage());
            waiting.computeIfAbsent(c.node(), k -> new HashSet<>()).add(uid);
        }
    }

    private void retryWaiting(String node) {
        Set<String> uids = waiting.remove(node);
        if (uids == null) {
            return;
        }
        for (String uid : uids) {
            Contribution c = effective(uid);
            if (c != null && c.node().equals(node)) {
                apply(uid, c);
            }
        }
    }

    /** As assumed while a bind is in flight or unobserved, else as observed. */
    private Contribution effective(String uid) {
        Contribution mine = assumed.get(uid);
        return mine != null ? mine : observed.get(uid);
    }

    private void recomputeLimits() {
        long memory = 0;
        int cards = 0;
        for (Node n : nodes.values()) {
            int healthy = 0;
            for (var c : n.cards()) {
                if (c.healthy()) {
                    healthy++;
                    memory = Math.max(memory, c.memoryMib());
                }
            }
            cards = Math.max(cards, healthy);
        }
        limits = new Limits(memory, cards);
    }

    /** Rebuilds a node's state from scratch: after its cards or capacity changed. */
    private void rebuild(String name) {
        states.put(name, new Entry(NodeState.empty(nodes.get(name))));
        waiting.remove(name);
        for (String uid : List.copyOf(podsByNode.getOrDefault(name, Set.of()))) {
            applied.remove(uid);
            Contribution c = effective(uid);
            if (c != null && c.node().equals(name)) {
                apply(uid, c);
            }
        }
    }

    private static Allocation allocation(Pod pod, String node) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Annotations.ALLOCATION);
        if (json == null) {
            return null;
        }
        try {
            Allocation a = Allocation.fromJson(json);
            return a.node().equals(node) ? a : null;
        } catch (IllegalArgumentException e) {
            LOG.warn("pod={} has an unreadable allocation: {}", key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                    e.getMessage());
            return null;
        }
    }

    /** How the cache names a pod or a claim, and {@link HostPod#claims()} a claim: namespace/name. */
    public static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
