package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.TruthWriter;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;

/** What the agent needs from the API server; {@link KubernetesCluster} in production, fakes in tests. */
public interface Cluster extends AutoCloseable {

    PodSource pods();

    TruthWriter truth();

    /** Publishes the node's labels and inventory. */
    void publish(Hardware hardware, CardHealth health);

    /**
     * What the next {@link #publish} says of isolation: the {@link io.elasticgpu.api.v1alpha1.NodeLabels#ISOLATION}
     * label and the {@link io.elasticgpu.api.v1alpha1.Annotations#ISOLATION} JSON (empty: none).
     */
    default void isolation(String label, String json) {}

    /**
     * Writes what the node's processes use into the node's annotation ({@link
     * io.elasticgpu.api.v1alpha1.Annotations#USAGE}). */
    default void publishUsage(NodeUsage usage) {}

    /** Posts a Normal event about this node, as kubelet does; never throws. */
    default void notice(String reason, String message) {}

    /** Posts a Warning event about an object on this node (a pod, a claim), as kubelet does; never throws. */
    default void warn(String kind, String namespace, String name, String reason, String message) {}

    /**
     * Evicts pod {@code namespace/name} of this node through the Eviction API (policy/v1), which honours its
     * PodDisruptionBudgets; only the pod with {@code uid}, never one created again under its name. One call, never
     * retried and never thrown: a refusal is answered.
     */
    default PodEviction evict(String namespace, String name, String uid) {
        return new PodEviction.Refused("this cluster evicts no pods");
    }

    @Override
    void close();
}
