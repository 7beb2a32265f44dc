package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every node with cards and its state: the node as its agent's inventory describes it, and core's immutable
 * {@link NodeState} with what each pod and each allocated claim holds there counted in. What an id (a pod's uid or a
 * claim's {@link Claims#id}) counts is asked of {@code counts} whenever it may have changed ({@link #recount}); a
 * pod whose cards do not fit its node's state yet waits there until something leaves the node (this cache saw another
 * replica reuse a card before it saw the deletion that freed it). Pods bound before their node has an inventory count
 * once it has one.
 *
 * <p>Not thread-safe: only {@link ClusterCache} touches it, under its lock. What {@link #entries} returns is immutable.
 */
final class Nodes {

    private static final Logger LOG = LoggerFactory.getLogger(Nodes.class);

    private final Map<String, Node> nodes = new HashMap<>();
    /** What {@link NodeConversion} read of each node last time: most node updates are kubelet's heartbeats. */
    private final Map<String, List<Object>> inputs = new HashMap<>();
    /** Each node's state: immutable, replaced at each change (cheaply: see {@link NodeEntries}). */
    private NodeEntries states = NodeEntries.EMPTY;
    /** Each node's {@link Snapshot.Entry#slot}, and the slots of nodes gone, to be given to the next new node. */
    private final Map<String, Integer> slots = new HashMap<>();

    private final java.util.ArrayDeque<Integer> freeSlots = new java.util.ArrayDeque<>();
    private long versions;
    /** What each id counts now, and the ids counted (or waiting to be) on each node. */
    private final Map<String, PodHolding> applied = new HashMap<>();

    private final Map<String, Set<String>> idsByNode = new HashMap<>();
    /** Ids whose holding did not fit their node's state yet, by node: retried whenever something leaves it. */
    private final Map<String, Set<String>> waiting = new HashMap<>();

    private final Function<String, PodHolding> counts;
    private final Consumer<String> freed;
    private Snapshot.Limits limits = new Snapshot.Limits(0, 0);

    /**
     * @param counts what an id should count now (null: nothing)
     * @param freed  told a node's name whenever something there may have become free; must not block
     */
    Nodes(Function<String, PodHolding> counts, Consumer<String> freed) {
        this.counts = counts;
        this.freed = freed;
    }

    /** Reads a node: an unreadable or missing inventory takes it out (its pods stay counted for when it is back). */
    void upsert(io.fabric8.kubernetes.api.model.Node k8s) {
        String name = k8s.getMetadata().getName();
        List<Object> read = NodeConversion.inputs(k8s);
        if (read.equals(inputs.put(name, read))) {
            return;
        }
        Optional<Node> converted;
        try {
            converted = NodeConversion.convert(k8s);
        } catch (IllegalArgumentException e) {
            LOG.warn("node={} ignored: {}", name, e.getMessage());
            converted = Optional.empty();
        }
        if (converted.isEmpty()) {
            nodes.remove(name);
            remove(name);
        } else if (!converted.get().equals(nodes.get(name))) {
            nodes.put(name, converted.get());
            rebuild(name);
            freed.accept(name);
        } else {
            return;
        }
        recomputeLimits();
    }

    void delete(String name) {
        inputs.remove(name);
        nodes.remove(name);
        remove(name);
        recomputeLimits();
    }

    /** A node's cards, or null when it publishes none. */
    Node node(String name) {
        return nodes.get(name);
    }

    /** Whether a node offers its cards through DRA. */
    boolean dra(String name) {
        Node n = nodes.get(name);
        return n != null && NodeLabels.dra(n.labels());
    }

    /** Every node's entry at this moment, immutable. */
    NodeEntries entries() {
        return states;
    }

    Snapshot.Limits limits() {
        return limits;
    }

    /** What each pod counted in {@code node}'s state holds there, by uid (claims left out: they are no pods). */
    Map<String, PodHolding> counted(String node) {
        Map<String, PodHolding> out = new HashMap<>();
        for (String id : idsByNode.getOrDefault(node, Set.of())) {
            PodHolding h = applied.get(id);
            if (h != null && h.pod() && h.node().equals(node) && states.get(node) != null) {
                out.put(id, h);
            }
        }
        return out;
    }

    /** The node {@code id} is counted on (or waits to be), if any. */
    Optional<String> countedOn(String id) {
        PodHolding h = applied.get(id);
        if (h != null) {
            return Optional.of(h.node());
        }
        return waiting.entrySet().stream()
                .filter(e -> e.getValue().contains(id))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    /** Ids whose recorded cards wait for a deletion this cache has not seen yet. */
    int waiting() {
        return waiting.values().stream().mapToInt(Set::size).sum();
    }

    /** Replaces what {@code id} counts on its node by what it should count now. */
    void recount(String id) {
        PodHolding old = applied.remove(id);
        waiting.values().forEach(set -> set.remove(id));
        if (old != null) {
            idsByNode.getOrDefault(old.node(), Set.of()).remove(id);
            NodeState s = state(old.node());
            if (s != null) {
                put(old.node(), old.removeFrom(s));
            }
        }
        PodHolding now = counts.apply(id);
        if (now != null) {
            idsByNode.computeIfAbsent(now.node(), k -> new HashSet<>()).add(id);
            apply(id, now);
        }
        if (old != null) {
            retryWaiting(old.node());
            if (now == null || !now.node().equals(old.node())) {
                freed.accept(old.node());
            }
        }
    }

    private NodeState state(String name) {
        Snapshot.Entry e = states.get(name);
        return e == null ? null : e.state();
    }

    private void put(String name, NodeState state) {
        Integer slot = slots.get(name);
        if (slot == null) {
            slot = freeSlots.isEmpty() ? slots.size() : freeSlots.pop();
            slots.put(name, slot);
        }
        states = states.with(name, new Snapshot.Entry(state, slot, ++versions));
    }

    private void remove(String name) {
        states = states.without(name);
        Integer slot = slots.remove(name);
        if (slot != null) {
            freeSlots.push(slot);
        }
    }

    private void apply(String id, PodHolding c) {
        NodeState s = state(c.node());
        if (s == null) {
            applied.put(id, c); // counted once the node has an inventory (see rebuild)
            return;
        }
        try {
            put(c.node(), c.addTo(s));
            applied.put(id, c);
        } catch (IllegalStateException e) {
            LOG.debug("pod uid={} waits to be counted on node={}: {}", id, c.node(), e.getMessage());
            waiting.computeIfAbsent(c.node(), k -> new HashSet<>()).add(id);
        }
    }

    private void retryWaiting(String node) {
        Set<String> ids = waiting.remove(node);
        if (ids == null) {
            return;
        }
        for (String id : ids) {
            PodHolding c = counts.apply(id);
            if (c != null && c.node().equals(node)) {
                apply(id, c);
            }
        }
    }

    /** Rebuilds a node's state from scratch: after its cards or capacity changed. */
    private void rebuild(String name) {
        put(name, NodeState.empty(nodes.get(name)));
        waiting.remove(name);
        for (String id : List.copyOf(idsByNode.getOrDefault(name, Set.of()))) {
            applied.remove(id);
            PodHolding c = counts.apply(id);
            if (c != null && c.node().equals(name)) {
                apply(id, c);
            }
        }
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
        limits = new Snapshot.Limits(memory, cards);
    }
}
