package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.allocation.ClusterPods;
import io.elasticgpu.node.allocation.PodAnnotations;
import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.TruthWriter;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.inventory.InventoryPublisher;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The agent's view of the API server through fabric8: pods on this node, pod annotations, node inventory. */
public final class KubernetesCluster implements Cluster {

    private final ClusterPods pods;
    private final PodAnnotations truth;
    private final InventoryPublisher inventory;
    private final SlicePublisher slices;
    private final ClusterEvents events;
    private final ClusterEvictions evictions;
    private volatile boolean sliceWithdrawn;

    public KubernetesCluster(KubernetesClient client, AgentConfig config) {
        this.pods = new ClusterPods(client, config.nodeName(), config.units());
        this.truth = new PodAnnotations(client, config.nodeName());
        this.inventory = new InventoryPublisher(client, config.nodeName(), NodeLabels.API_DEVICE_PLUGIN);
        this.slices = new SlicePublisher(client, config.nodeName());
        this.events = new ClusterEvents(client, config.nodeName());
        this.evictions = new ClusterEvictions(client);
    }

    @Override
    public void isolation(String label, String json) {
        inventory.isolation(label, json);
    }

    @Override
    public void publishUsage(NodeUsage usage) {
        inventory.publishUsage(usage);
    }

    @Override
    public void warn(String kind, String namespace, String name, String reason, String message) {
        events.warn(kind, namespace, name, reason, message);
    }

    @Override
    public void notice(String reason, String message) {
        events.notice(reason, message);
    }

    @Override
    public PodEviction evict(String namespace, String name, String uid) {
        return evictions.evict(namespace, name, uid);
    }

    @Override
    public PodSource pods() {
        return pods;
    }

    @Override
    public TruthWriter truth() {
        return truth;
    }

    @Override
    public void publish(Hardware hardware, CardHealth health) {
        if (!sliceWithdrawn) {
            // One API per card: a ResourceSlice left by an earlier run in DRA mode would offer these cards to DRA
            // claims while the device plugin offers them to pods. Removed before the device plugin advertises anything.
            slices.withdraw();
            sliceWithdrawn = true;
        }
        inventory.publish(hardware, health);
    }

    @Override
    public void close() {
        pods.close();
    }
}
