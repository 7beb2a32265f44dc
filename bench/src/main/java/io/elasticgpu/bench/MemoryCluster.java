package io.elasticgpu.bench;

import io.elasticgpu.node.agent.Cluster;
import io.elasticgpu.node.allocation.NodePod;
import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.TruthWriter;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** The API server as the benchmarks need it: a list of pods, and counters of what the agent wrote. */
final class MemoryCluster implements Cluster {

    final List<NodePod> pods = new CopyOnWriteArrayList<>();
    final AtomicInteger recorded = new AtomicInteger();

    private final PodSource source = new PodSource() {
        @Override
        public List<NodePod> pods() {
            return List.copyOf(pods);
        }

        @Override
        public List<NodePod> refresh() {
            return List.copyOf(pods);
        }
    };

    @Override
    public PodSource pods() {
        return source;
    }

    @Override
    public TruthWriter truth() {
        return (pod, given, notes, complete) -> recorded.incrementAndGet();
    }

    @Override
    public void publish(Hardware hardware, CardHealth health) {}

    @Override
    public void close() {}
}
