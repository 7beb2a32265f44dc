package io.elasticgpu.core.snapshot;

/**
 * Node states by index, as a look-ahead reads a cluster: the simulator's {@link ClusterState} in cluster order, the
 * extender's snapshot by slot. An index keeps its node while it exists, so readers key what they derive from a node
 * by index and keep it while the state there is the same instance. On equal scores the lower index wins.
 */
public interface NodeStates {

    /** One past the highest index. */
    int size();

    /** The state at {@code index}, or null where no node is (a slot whose node is gone). */
    NodeState node(int index);
}
