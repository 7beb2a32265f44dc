package io.elasticgpu.localcluster.nodes;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;

/**
 * Pods placed on fake GPU nodes the way the extender and node agent leave them, without either running: bound by
 * {@code nodeName}, with an {@code elasticgpu.io/allocation} annotation and phase {@code allocated}. For tests of what
 * reads allocations (the controller, the dashboard). Also turns a fake node's card unhealthy, as the agent would.
 */
public final class AllocatedPods {

    private AllocatedPods() {}

    /** The uuid {@link GpuNodeSpec#inventory()} gives card {@code card} of {@code node}. */
    public static String uuid(String node, int card) {
        return "GPU-%s-%d".formatted(node, card);
    }

    /**
     * Creates the pod. A container whose shares are whole cards (milli 1000) asks {@code elasticgpu.io/gpu}, else one
     * memory and compute slice.
     *
     * @param claim the ElasticGPUClaim every container names, or null
     */
    public static Pod create(
            KubernetesClient client,
            String namespace,
            String name,
            String node,
            Map<String, List<Share>> containers,
            String claim) {
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(node, containers).toJson())
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ALLOCATED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec();
        containers.forEach((container, shares) -> {
            boolean whole = shares.getFirst().milli() == 1000;
            Map<String, Quantity> limits = whole
                    ? Map.of(ResourceNames.GPU, new Quantity(Integer.toString(shares.size())))
                    : Map.of(
                            ResourceNames.GPU_MEMORY,
                            new Quantity(Long.toString(shares.getFirst().memoryMib())),
                            ResourceNames.GPU_CORE,
                            new Quantity(Integer.toString(shares.getFirst().milli() / 10)));
            pod.editSpec()
                    .addNewContainer()
                    .withName(container)
                    .withImage("registry.example/gpu:1")
                    .withNewResources()
                    .withLimits(limits)
                    .endResources()
                    .endContainer()
                    .endSpec();
            if (claim != null) {
                pod.editMetadata()
                        .addToAnnotations(ClaimAnnotations.key(container), claim)
                        .endMetadata();
            }
        });
        return client.pods().inNamespace(namespace).resource(pod.build()).create();
    }

    /**
     * Rewrites the node's inventory with card {@code card} healthy or not, as the node agent publishes health. kwok
     * updates the node's status meanwhile, so a write that lost the race (409) is made again on the fresh node.
     */
    public static void setHealthy(KubernetesClient client, String node, int card, boolean healthy) {
        for (int attempt = 1; ; attempt++) {
            try {
                editHealth(client, node, card, healthy);
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) {
                    throw e;
                }
            }
        }
    }

    private static void editHealth(KubernetesClient client, String node, int card, boolean healthy) {
        client.nodes().withName(node).edit(n -> {
            NodeInventory inventory =
                    NodeInventory.fromJson(n.getMetadata().getAnnotations().get(Annotations.INVENTORY));
            List<NodeInventory.Card> cards = inventory.cards().stream()
                    .map(c -> c.index() != card
                            ? c
                            : new NodeInventory.Card(c.index(), c.uuid(), c.model(), c.memoryMib(), healthy, c.numa()))
                    .toList();
            n.getMetadata()
                    .getAnnotations()
                    .put(Annotations.INVENTORY, new NodeInventory(cards, inventory.links()).toJson());
            return n;
        });
    }
}
