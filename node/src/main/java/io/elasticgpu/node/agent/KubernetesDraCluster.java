package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.ApiClaims;
import io.elasticgpu.node.dra.ClaimSource;
import io.elasticgpu.node.inventory.InventoryPublisher;
import io.elasticgpu.node.resourceslice.SliceGuard;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.List;
import java.util.function.IntPredicate;

/** The DRA agent's view of the API server through fabric8: node labels and inventory, the ResourceSlice, claims. */
public final class KubernetesDraCluster implements DraCluster {

    private final KubernetesClient client;
    private final String node;
    private final InventoryPublisher inventory;
    private final SliceGuard slices;

    public KubernetesDraCluster(KubernetesClient client, String node) {
        this.client = client;
        this.node = node;
        this.inventory = new InventoryPublisher(client, node, NodeLabels.API_DRA);
        this.slices = new SliceGuard(client, node);
    }

    @Override
    public void publish(Hardware hardware, IntPredicate healthy) {
        inventory.publish(hardware, healthy);
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
    public void close() {
        slices.close(); // the client is the caller's
    }
}
