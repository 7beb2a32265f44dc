package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A hand-written fake of what allocation reads: the pods the API has for the node, kubelet's records, and a card
 * table of equal cards whose device ids are {@code <uuid>::m<n>} (1 MiB each) and {@code <uuid>} for whole cards.
 */
final class FakeNode implements PodSource, KubeletRecords, CardTable {

    final int cards;
    final long memoryMib;
    final List<NodePod> pods = new CopyOnWriteArrayList<>();
    /** Pods in the API the agent's watch has not delivered yet: only {@link #refresh} finds them. */
    final List<NodePod> unwatched = new CopyOnWriteArrayList<>();

    final Map<ContainerKey, Map<String, List<String>>> records = new HashMap<>();
    private final Map<Integer, Integer> nextId = new HashMap<>();

    /** How often kubelet's records were read. */
    int lists;

    FakeNode(int cards, long memoryMib) {
        this.cards = cards;
        this.memoryMib = memoryMib;
    }

    @Override
    public List<NodePod> pods() {
        return List.copyOf(pods);
    }

    @Override
    public List<NodePod> refresh() {
        List<NodePod> all = new ArrayList<>(pods);
        all.addAll(unwatched);
        return all;
    }

    @Override
    public synchronized Map<ContainerKey, Map<String, List<String>>> list() {
        lists++;
        Map<ContainerKey, Map<String, List<String>>> copy = new HashMap<>();
        records.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
        return copy;
    }

    synchronized void record(ContainerKey key, String resource, List<String> ids) {
        records.computeIfAbsent(key, k -> new HashMap<>()).put(resource, List.copyOf(ids));
    }

    synchronized void forget(NodePod pod) {
        records.keySet()
                .removeIf(k -> k.namespace().equals(pod.namespace()) && k.pod().equals(pod.name()));
        pods.remove(pod);
    }

    /** {@code n} fresh memory-block ids on {@code card}, as kubelet would pick from the free ones. */
    synchronized List<String> memoryIds(int card, int n) {
        List<String> ids = new ArrayList<>();
        int start = nextId.merge(card, n, Integer::sum) - n;
        for (int i = 0; i < n; i++) {
            ids.add(uuid(card) + "::m" + (start + i));
        }
        return ids;
    }

    /** A pod with one container asking {@code memory} MiB of {@code resource}, planned on {@code card}. */
    NodePod slicePod(String name, long assumeTime, String resource, long memory, int card) {
        return pod(name, assumeTime, new Share(card, uuid(card), 0, memory), Map.of(resource, memory));
    }

    /** As {@link #slicePod}, its compute asked as 100 TFLOPS of bf16, which became 110 milli giving 108.8. */
    NodePod tflopsPod(String name, long assumeTime, String resource, long memory, int card) {
        return pod(
                name,
                assumeTime,
                new Share(card, uuid(card), 110, memory, 100, "bf16", 108.8),
                Map.of(resource, memory));
    }

    /** A pod with one container asking one whole card ({@code elasticgpu.io/gpu}), planned on {@code card}. */
    NodePod wholeCardPod(String name, long assumeTime, int card) {
        return pod(name, assumeTime, new Share(card, uuid(card), 1000, memoryMib), Map.of("elasticgpu.io/gpu", 1L));
    }

    private static NodePod pod(String name, long assumeTime, Share share, Map<String, Long> asks) {
        Map<String, List<Share>> plan = new LinkedHashMap<>();
        plan.put("main", List.of(share));
        return new NodePod(
                "uid-" + name,
                "default",
                name,
                assumeTime,
                java.util.Optional.of(new PodGrant("node-1", plan)),
                false,
                List.of(new NodePod.Container("main", asks, Family.ELASTIC_GPU, false)));
    }

    @Override
    public int size() {
        return cards;
    }

    @Override
    public String uuid(int card) {
        return "GPU-%04d".formatted(card);
    }

    @Override
    public long memoryMib(int card) {
        return memoryMib;
    }

    @Override
    public boolean wholeCards(String resource) {
        return resource.equals("elasticgpu.io/gpu");
    }

    @Override
    public int cardOf(String deviceId) {
        int sep = deviceId.indexOf("::");
        String uuid = sep < 0 ? deviceId : deviceId.substring(0, sep);
        int card = Integer.parseInt(uuid.substring(4));
        if (card >= cards) {
            throw new AllocationException("device id %s is not one this agent advertises".formatted(deviceId));
        }
        return card;
    }
}
