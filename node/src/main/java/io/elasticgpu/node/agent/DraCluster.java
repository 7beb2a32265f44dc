package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.ClaimSource;
import io.elasticgpu.node.health.CardHealth;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.util.List;
import java.util.Set;

/** What the agent in DRA mode needs from the API server; {@link KubernetesDraCluster} in production, fakes in tests. */
public interface DraCluster extends AutoCloseable {

    /** The node's labels (saying it uses DRA) and inventory. */
    void publish(Hardware hardware, CardHealth health);

    /** As {@link Cluster#isolation}. */
    default void isolation(String label, String json) {}

    /**
     * Writes what the node's processes use into the node's annotation ({@link
     * io.elasticgpu.api.v1alpha1.Annotations#USAGE}). */
    default void publishUsage(NodeUsage usage) {}

    /**
     * The pods on this node (for telling whose a process on a card is); empty where the cluster does not watch them. */
    default java.util.Collection<io.elasticgpu.node.usage.PodView> podViews() {
        return java.util.List.of();
    }

    /** Posts a Normal event about this node, as kubelet does; never throws. */
    default void notice(String reason, String message) {}

    /** Posts a Warning event about an object on this node (a claim, a pod), as kubelet does; never throws. */
    default void warn(String kind, String namespace, String name, String reason, String message) {}

    /**
     * Evicts pod {@code namespace/name} of this node through the Eviction API (policy/v1), which honours its
     * PodDisruptionBudgets; only the pod with {@code uid}, never one created again under its name. One call, never
     * retried and never thrown: a refusal is answered.
     */
    default PodEviction evict(String namespace, String name, String uid) {
        return new PodEviction.Refused("this cluster evicts no pods");
    }

    /** The node's ResourceSlice. */
    void publishSlice(List<Device> devices);

    /** Where claims are read from. */
    ClaimSource claims(Hardware hardware);

    /** Calls {@code changed} whenever {@link #devicePluginCards()} may have changed, from now on. */
    void watchDevicePluginPods(Runnable changed);

    /** The cards that pods of the device plugin path on this node still hold (it ran the device plugin before). */
    Set<Integer> devicePluginCards();

    @Override
    void close();
}
