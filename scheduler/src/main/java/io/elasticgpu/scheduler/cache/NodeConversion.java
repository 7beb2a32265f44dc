package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Health;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Topology;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A Kubernetes node as the placement engine sees it: allocatable CPU, memory and pods, and the inventory's cards. */
public final class NodeConversion {

    private NodeConversion() {}

    /**
     * The node's model, or empty when it has no inventory. Cordoned and not-Ready nodes are kube-scheduler's to
     * filter; here a card is healthy when the node agent says so.
     *
     * @throws IllegalArgumentException when the inventory annotation is present but malformed
     */
    /** Everything {@link #convert} reads of the node: equal inputs convert to an equal node. */
    static List<Object> inputs(io.fabric8.kubernetes.api.model.Node k8s) {
        Map<String, String> annotations = k8s.getMetadata().getAnnotations();
        return Arrays.asList(
                annotations == null ? null : annotations.get(Annotations.INVENTORY),
                k8s.getStatus() == null ? null : k8s.getStatus().getAllocatable(),
                k8s.getMetadata().getLabels());
    }

    public static Optional<Node> convert(io.fabric8.kubernetes.api.model.Node k8s) {
        Map<String, String> annotations = k8s.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Annotations.INVENTORY);
        if (json == null) {
            return Optional.empty();
        }
        NodeInventory inventory = NodeInventory.fromJson(json);
        Map<String, Quantity> allocatable =
                k8s.getStatus() == null || k8s.getStatus().getAllocatable() == null
                        ? Map.of()
                        : k8s.getStatus().getAllocatable();
        List<Card> cards = new ArrayList<>();
        for (NodeInventory.Card c : inventory.cards()) {
            Health health = c.healthy() ? Health.HEALTHY : Health.UNHEALTHY;
            cards.add(new Card(c.index(), c.uuid(), c.model(), c.memoryMib(), Card.WHOLE, health, c.numa()));
        }
        Topology.Builder topology = Topology.builder(cards.size());
        for (NodeInventory.Link l : inventory.links()) {
            LinkKind kind = LinkKind.valueOf(l.kind());
            topology.link(
                    l.a(), l.b(), kind == LinkKind.NVLINK ? Link.nvlink(Math.max(1, l.nvlinks())) : Link.of(kind));
        }
        long pods = allocatable.containsKey("pods")
                ? Quantity.getAmountInBytes(allocatable.get("pods")).longValue()
                : 110;
        return Optional.of(new Node(
                k8s.getMetadata().getName(),
                PodResources.milli(allocatable.get("cpu")),
                PodResources.mib(allocatable.get("memory")),
                (int) Math.min(Integer.MAX_VALUE, pods),
                cards,
                k8s.getMetadata().getLabels() == null
                        ? Map.of()
                        : k8s.getMetadata().getLabels(),
                topology.build()));
    }
}
