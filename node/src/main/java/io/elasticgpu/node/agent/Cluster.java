package io.elasticgpu.node.agent;

import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.TruthWriter;
import io.elasticgpu.node.discovery.Hardware;

import java.util.function.IntPredicate;

/** What the agent needs from the API server; {@link KubernetesCluster} in production, fakes in tests. */
public interface Cluster extends AutoCloseable {

    PodSource pods();

    TruthWriter truth();

    /** Publishes the node's labels and inventory. */
    void publish(Hardware hardware, IntPredicate healthy);

    @Override
    void close();
}
