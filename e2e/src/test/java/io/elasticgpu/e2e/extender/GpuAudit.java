package io.elasticgpu.e2e.extender;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the cards of some nodes hold, from API state alone: the nodes' inventories and the allocation annotations of
 * the live pods bound to them. Independent of the extender's own bookkeeping: it is what checks it.
 */
final class GpuAudit {

    /** One card: capacity and what is held. */
    record Card(String node, int index, long memoryMib, long heldMilli, long heldMemoryMib, List<String> pods) {
        boolean overCommitted() {
            return heldMilli > 1000 || heldMemoryMib > memoryMib;
        }

        long freeMemory() {
            return memoryMib - heldMemoryMib;
        }

        long freeMilli() {
            return 1000 - heldMilli;
        }

        boolean idle() {
            return heldMilli == 0 && heldMemoryMib == 0;
        }
    }

    private final Map<String, List<Card>> cards;

    private GpuAudit(Map<String, List<Card>> cards) {
        this.cards = cards;
    }

    static GpuAudit of(KubernetesClient client, List<String> nodes) {
        Map<String, long[][]> held = new HashMap<>();
        Map<String, Map<Integer, List<String>>> holders = new HashMap<>();
        for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
            String node = p.getSpec().getNodeName();
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            String json = p.getMetadata().getAnnotations() == null
                    ? null
                    : p.getMetadata().getAnnotations().get(Annotations.ALLOCATION);
            if (node == null
                    || !nodes.contains(node)
                    || json == null
                    || "Succeeded".equals(phase)
                    || "Failed".equals(phase)) {
                continue;
            }
            PodGrant a = PodGrant.fromJson(json);
            for (var shares : a.containers().values()) {
                for (var s : shares) {
                    long[][] h = held.computeIfAbsent(node, k -> new long[16][2]);
                    h[s.card()][0] += s.milli();
                    h[s.card()][1] += s.memoryMib();
                    holders.computeIfAbsent(node, k -> new HashMap<>())
                            .computeIfAbsent(s.card(), k -> new java.util.ArrayList<>())
                            .add(p.getMetadata().getName());
                }
            }
        }
        Map<String, List<Card>> cards = new HashMap<>();
        for (String name : nodes) {
            Node node = client.nodes().withName(name).get();
            NodeInventory inventory =
                    NodeInventory.fromJson(node.getMetadata().getAnnotations().get(Annotations.INVENTORY));
            long[][] h = held.getOrDefault(name, new long[16][2]);
            cards.put(
                    name,
                    inventory.cards().stream()
                            .map(c -> new Card(
                                    name,
                                    c.index(),
                                    c.memoryMib(),
                                    h[c.index()][0],
                                    h[c.index()][1],
                                    holders.getOrDefault(name, Map.of()).getOrDefault(c.index(), List.of())))
                            .toList());
        }
        return new GpuAudit(cards);
    }

    List<Card> overCommitted() {
        return cards.values().stream()
                .flatMap(List::stream)
                .filter(Card::overCommitted)
                .toList();
    }

    long cardsHolding() {
        return cards.values().stream()
                .flatMap(List::stream)
                .filter(c -> !c.idle())
                .count();
    }

    /**
     * Whether some node could still take {@code cardsNeeded} cards each with {@code milli} and {@code memoryMib}
     * free ({@code whole}: idle cards).
     */
    boolean couldFit(int cardsNeeded, boolean whole, long milli, long memoryMib) {
        for (List<Card> node : cards.values()) {
            long fitting = node.stream()
                    .filter(c -> whole ? c.idle() : c.freeMilli() >= milli && c.freeMemory() >= memoryMib)
                    .count();
            if (fitting >= cardsNeeded) {
                return true;
            }
        }
        return false;
    }
}
