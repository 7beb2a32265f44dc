package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.policy.CardChoice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Replicas mode (seed 000, no extender): each card is advertised as several virtual devices and a container gets
 * whole-card access to the least-loaded real cards, a multi-card container the least-loaded card and its
 * best-linked peers. Load is the number of containers kubelet records on a card. {@code GetPreferredAllocation}
 * steers kubelet to virtual ids of those cards, so kubelet's own records name the cards the container uses; when
 * kubelet picked ids that name one card twice, the container is given distinct cards and the agent remembers it.
 */
public final class ReplicaAllocator implements Allocator {

    private final KubeletRecords kubelet;
    private final CardTable cards;
    private final Topology topology;
    private final IntPredicate healthy;
    private final Map<List<String>, List<Integer>> remapped = new HashMap<>();

    public ReplicaAllocator(KubeletRecords kubelet, CardTable cards, Topology topology, IntPredicate healthy) {
        this.kubelet = kubelet;
        this.cards = cards;
        this.topology = topology;
        this.healthy = healthy;
    }

    @Override
    public synchronized ContainerGrant allocate(String resource, List<String> ids) {
        List<Integer> named = cards.cardsOf(ids);
        List<Integer> chosen = named;
        if (named.size() < ids.size()) {
            chosen = best(ids.size(), load(kubelet.list()));
            remapped.put(List.copyOf(ids), chosen);
        }
        return new ContainerGrant(
                new ContainerKey("", "", "(unknown until kubelet records it)"),
                shares(chosen),
                Family.ELASTIC_GPU,
                chosen.equals(named)
                        ? ""
                        : "kubelet chose ids on cards %s; gave distinct cards %s".formatted(named, chosen));
    }

    @Override
    public synchronized List<String> preferred(
            String resource, List<String> available, List<String> mustInclude, int size) {
        int[] load = load(kubelet.list());
        Map<Integer, List<String>> byCard = new HashMap<>();
        available.forEach(id ->
                byCard.computeIfAbsent(cards.cardOf(id), c -> new ArrayList<>()).add(id));
        List<Integer> offered =
                byCard.keySet().stream().filter(healthy::test).sorted().toList();
        if (offered.size() < size) {
            return available.subList(0, Math.min(size, available.size()));
        }
        List<String> out = new ArrayList<>();
        for (int c : CardChoice.bestLinked(
                offered.stream().mapToInt(Integer::intValue).toArray(), size, topology, card -> load[card])) {
            out.add(byCard.get(c).getFirst());
        }
        return out;
    }

    private List<Integer> best(int k, int[] load) {
        List<Integer> offered = new ArrayList<>();
        for (int c = 0; c < cards.size(); c++) {
            if (healthy.test(c)) {
                offered.add(c);
            }
        }
        if (offered.size() < k) {
            throw new AllocationException("%d cards wanted, %d healthy on this node".formatted(k, offered.size()));
        }
        int[] candidates = offered.stream().mapToInt(Integer::intValue).toArray();
        return java.util.Arrays.stream(CardChoice.bestLinked(candidates, k, topology, card -> load[card]))
                .boxed()
                .toList();
    }

    /** Containers per card, from kubelet's records. */
    private int[] load(Map<ContainerKey, Map<String, List<String>>> records) {
        int[] load = new int[cards.size()];
        for (Map<String, List<String>> byResource : records.values()) {
            for (List<String> ids : byResource.values()) {
                cardsHeld(ids).forEach(c -> load[c]++);
            }
        }
        return load;
    }

    private List<Integer> cardsHeld(List<String> ids) {
        return remapped.getOrDefault(List.copyOf(ids), cards.cardsOf(ids));
    }

    /** What each container kubelet records holds, for writing into the pods. */
    public synchronized Map<ContainerKey, ContainerGrant> reconcile() {
        Map<ContainerKey, ContainerGrant> out = new HashMap<>();
        Map<ContainerKey, Map<String, List<String>>> records = kubelet.list();
        records.forEach((k, byResource) -> byResource
                .values()
                .forEach(ids -> out.put(k, new ContainerGrant(k, shares(cardsHeld(ids)), Family.ELASTIC_GPU, ""))));
        remapped.keySet()
                .retainAll(records.values().stream()
                        .flatMap(m -> m.values().stream())
                        .map(List::copyOf)
                        .toList());
        return out;
    }

    private List<Share> shares(List<Integer> chosen) {
        return chosen.stream().map(c -> new Share(c, cards.uuid(c), 0, 0)).toList();
    }
}
