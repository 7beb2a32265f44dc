package io.elasticgpu.scheduler.cache;

import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.NodeStates;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The cluster as one filter, prioritize or bind sees it, taken from {@link ClusterCache#snapshot} and never changed
 * after: each node with cards as core's immutable {@link NodeState}, the limits, the nodes where a pod holds cards
 * nobody can name, the ResourceClaims and the filters' holds, each as of that moment. The node states are shared with
 * the cache and the snapshots before and after: taking one copies nothing (see {@link NodeEntries}).
 * Thread-safe: immutable.
 */
public final class Snapshot {

    /**
     * A node's state, with what readers key what they derive from it by (the decisions keep their judgements in
     * tables indexed by {@code slot}, valid while {@code version} is the one they were made for).
     *
     * @param slot    the node's place in per-node tables: the same for all its states, another node's only once it
     *                is gone (small whole numbers, so that a table is an array as long as the cluster is large)
     * @param version unique to this state among all entries the cache made: a new state of the node, a new version
     */
    public record Entry(NodeState state, int slot, long version) {}

    /** The largest card and the node with most cards, among healthy cards: what any pod can hope for at most. */
    public record Limits(long maxCardMemoryMib, int maxCardsPerNode) {}

    /** What {@link #workloadPodCount}, {@link #unaccounted} and {@link #waitingToBeCounted} say. */
    record Counts(int workloadPods, int unaccounted, int waiting) {}

    private final NodeEntries entries;
    private final Limits limits;
    private final Map<String, String> unknownHolders;
    private final Map<String, ResourceClaim> claims;
    private final Map<String, Hold> holds;
    private final Counts counts;

    /** What the cache's parts hold now; called under the cache's lock. */
    static Snapshot of(Nodes nodes, Pods pods, Claims claims, Assumptions assumptions) {
        return new Snapshot(
                nodes.entries(),
                nodes.limits(),
                pods.unknownHolders(),
                claims.byKey(),
                assumptions.holds(),
                new Counts(pods.count() + claims.count(), pods.unaccounted(), nodes.waiting()));
    }

    /** Every map immutable, and never changed by whoever made it. */
    Snapshot(
            NodeEntries entries,
            Limits limits,
            Map<String, String> unknownHolders,
            Map<String, ResourceClaim> claims,
            Map<String, Hold> holds,
            Counts counts) {
        this.entries = entries;
        this.limits = limits;
        this.unknownHolders = unknownHolders;
        this.claims = claims;
        this.holds = holds;
        this.counts = counts;
    }

    /** A node's state, or null when it has no cards. */
    public NodeState state(String node) {
        Entry e = entries.get(node);
        return e == null ? null : e.state();
    }

    /** A node's state with its slot for derived values, or null when it has no cards. */
    public Entry entry(String node) {
        return entries.get(node);
    }

    /** What {@link NodeLookup} keys its memory by: the same number, the same names in the same slots. */
    long members() {
        return entries.members();
    }

    /** The entry in {@code slot}, or null when no node has it. */
    Entry atSlot(int slot) {
        return entries.atSlot(slot);
    }

    /**
     * Every node's state by {@link Entry#slot}, null in slots no node has: what a look-ahead reads the cluster as
     * (an index keeps its node while it exists, as {@link NodeStates} asks).
     */
    public NodeStates bySlot() {
        return new NodeStates() {
            @Override
            public int size() {
                return entries.slots();
            }

            @Override
            public NodeState node(int index) {
                Entry e = atSlot(index);
                return e == null ? null : e.state();
            }
        };
    }

    /** A node's cards, as its agent's inventory describes them. */
    public Optional<Node> node(String name) {
        return Optional.ofNullable(state(name)).map(NodeState::node);
    }

    /** Every node with cards and its state, by name. */
    public SortedMap<String, NodeState> states() {
        SortedMap<String, NodeState> out = new TreeMap<>();
        entries.forEach((name, e) -> out.put(name, e.state()));
        return Collections.unmodifiableSortedMap(out);
    }

    public Limits limits() {
        return limits;
    }

    /**
     * A pod bound to {@code node} that asks GPUs but whose cards are unknown (its allocation is missing, unreadable or
     * names another node), as namespace/name; empty when every holder there is known.
     */
    public Optional<String> unknownHolder(String node) {
        return Optional.ofNullable(unknownHolders.get(node));
    }

    /** Whether any node has such a pod (the filter looks no node up when none has). */
    public boolean hasUnknownHolders() {
        return !unknownHolders.isEmpty();
    }

    /** A ResourceClaim as last seen. */
    public Optional<ResourceClaim> claim(String namespace, String name) {
        return Optional.ofNullable(claims.get(HostPod.key(namespace, name)));
    }

    /** The filter's decision held for pod {@code uid}, if any. */
    public Optional<Hold> held(String uid) {
        return Optional.ofNullable(holds.get(uid));
    }

    /** How many pods and claims the workload estimate is made from at most: GPU pods, pods without GPUs, claims. */
    public int workloadPodCount() {
        return counts.workloadPods();
    }

    /** Bound GPU pods seen without an allocation annotation since start. */
    public int unaccounted() {
        return counts.unaccounted();
    }

    /** Pods whose recorded cards wait for a deletion the cache has not seen yet. */
    public int waitingToBeCounted() {
        return counts.waiting();
    }
}
