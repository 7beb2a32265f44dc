package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.watch.Informers;
import io.elasticgpu.api.watch.OnChange;
import io.elasticgpu.node.allocation.ClusterPods;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.ApiClaims;
import io.elasticgpu.node.dra.ClaimSource;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.inventory.InventoryPublisher;
import io.elasticgpu.node.resourceslice.SliceGuard;
import io.elasticgpu.node.usage.PodView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Set;

/**
 * The DRA agent's view of the API server through fabric8: node labels and inventory, the ResourceSlice, claims, and
 * the pods on the node that hold cards through the device plugin path.
 */
public final class KubernetesDraCluster implements DraCluster {

    private final KubernetesClient client;
    private final String node;
    private final PodAsks.Units units;
    private final InventoryPublisher inventory;
    private final SliceGuard slices;
    private final ClusterEvents events;
    private final ClusterEvictions evictions;
    private SharedIndexInformer<Pod> pods;

    public KubernetesDraCluster(KubernetesClient client, String node, PodAsks.Units units) {
        this.client = client;
        this.node = node;
        this.units = units;
        this.inventory = new InventoryPublisher(client, node, NodeLabels.API_DRA);
        this.slices = new SliceGuard(client, node);
        this.events = new ClusterEvents(client, node);
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
    public void publish(Hardware hardware, CardHealth health) {
        inventory.publish(hardware, health);
    }

    @Override
    public void publishSlice(List<Device> devices) {
        slices.publish(devices);
    }

    @Override
    public ClaimSource claims(Hardware hardware) {
        return new ApiClaims(client, node, hardware);
    }

    @Override
    public synchronized void watchDevicePluginPods(Runnable changed) {
        if (pods == null) {
            // list/watch restricted to this node's pods, as the agent in device plugin mode reads them
            pods = Informers.ours(client.pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", node)
                    .runnableInformer(0));
            pods.addEventHandler(new OnChange<>(changed));
            pods.run();
        }
    }

    @Override
    public synchronized java.util.Collection<PodView> podViews() {
        return pods == null
                ? List.of()
                : pods.getStore().list().stream()
                        .map(p -> new PodView(
                                p.getMetadata().getUid(),
                                p.getMetadata().getNamespace(),
                                p.getMetadata().getName(),
                                ClusterPods.containerIds(p),
                                java.util.Map.of()))
                        .toList();
    }

    @Override
    public synchronized Set<Integer> devicePluginCards() {
        return pods == null ? Set.of() : ClusterPods.heldCards(pods.getStore().list(), node, units);
    }

    @Override
    public synchronized void close() {
        if (pods != null) {
            pods.close();
        }
        slices.close(); // the client is the caller's
    }
}
