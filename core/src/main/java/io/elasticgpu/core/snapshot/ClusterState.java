package io.elasticgpu.core.snapshot;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The mutable bookkeeping of a whole cluster: one {@link NodeState} per node, replaced as placements are assumed
 * and forgotten. The order of nodes is the order policies see them in, which is also the tie-break order: on equal
 * scores the earlier node wins.
 *
 * <p>Not thread-safe: confine an instance to one thread or guard every call with one lock. Readers that need a
 * stable view take the {@link NodeState}s, which never change.
 */
public final class ClusterState implements NodeStates {

    private final NodeState[] states;
    private final Map<String, Integer> indexByName;
    private final long capacityMilli;
    private long usedMilli;

    public ClusterState(List<Node> nodes) {
        requireNonNull(nodes, "nodes");
        states = new NodeState[nodes.size()];
        indexByName = new HashMap<>();
        long capacity = 0;
        for (int i = 0; i < states.length; i++) {
            Node node = nodes.get(i);
            if (indexByName.putIfAbsent(node.name(), i) != null) {
                throw new IllegalArgumentException("cluster: node name %s appears twice".formatted(node.name()));
            }
            states[i] = NodeState.empty(node);
            capacity += node.cards().stream().mapToLong(c -> c.computeMilli()).sum();
        }
        capacityMilli = capacity;
    }

    @Override
    public int size() {
        return states.length;
    }

    @Override
    public NodeState node(int index) {
        return states[index];
    }

    public NodeState node(String name) {
        return states[indexOf(name)];
    }

    public int indexOf(String name) {
        Integer index = indexByName.get(name);
        if (index == null) {
            throw new IllegalArgumentException("cluster has no node named %s".formatted(name));
        }
        return index;
    }

    /** A snapshot of every node's state, in cluster order. */
    public List<NodeState> nodes() {
        return Collections.unmodifiableList(new ArrayList<>(List.of(states)));
    }

    /** Records {@code placement}; throws and changes nothing if it does not fit. */
    public void assume(Grant placement) {
        int i = indexOf(placement.node());
        states[i] = states[i].with(placement);
        usedMilli += placement.totalMilli();
    }

    /** Removes {@code placement}; throws and changes nothing if it is not held. */
    public void forget(Grant placement) {
        int i = indexOf(placement.node());
        states[i] = states[i].without(placement);
        usedMilli -= placement.totalMilli();
    }

    /** Replaces a node's description (health, labels) and keeps what runs on it. */
    public void update(Node node) {
        int i = indexOf(node.name());
        states[i] = states[i].withNode(node);
    }

    /** Compute capacity of every card in the cluster, in milli-cards. */
    public long capacityMilli() {
        return capacityMilli;
    }

    /** Compute held by placements, in milli-cards. */
    public long usedMilli() {
        return usedMilli;
    }
}
