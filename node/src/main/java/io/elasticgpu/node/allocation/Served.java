package io.elasticgpu.node.allocation;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which containers hold which of our resources: kubelet's records (pod-resources {@code List}) plus the calls this
 * agent answered that kubelet has not recorded yet. Immutable once built.
 */
public final class Served {

    private final Map<ContainerKey, Map<String, List<String>>> kubelet;
    private final Set<String> holding; // "ns/pod/container resource"
    private final Set<String> pods; // "ns/pod"
    private Map<String, List<ContainerKey>> bySmallestId; // "resource smallest-id" -> holders, built on first use

    /**
     * @param kubelet  device ids per resource per container, as kubelet reports them
     * @param inFlight containers and the resource of calls answered but not yet in kubelet's records
     */
    public Served(Map<ContainerKey, Map<String, List<String>>> kubelet, Map<ContainerKey, Set<String>> inFlight) {
        this.kubelet = Map.copyOf(kubelet);
        this.holding = new HashSet<>();
        this.pods = new HashSet<>();
        kubelet.forEach((k, byResource) -> byResource.forEach((r, ids) -> {
            if (!ids.isEmpty()) {
                add(k, r);
            }
        }));
        inFlight.forEach((k, resources) -> resources.forEach(r -> add(k, r)));
    }

    public static Served none() {
        return new Served(Map.of(), Map.of());
    }

    private void add(ContainerKey k, String resource) {
        holding.add(k + " " + resource);
        pods.add(k.namespace() + "/" + k.pod());
    }

    public boolean holds(ContainerKey key, String resource) {
        return holding.contains(key + " " + resource);
    }

    public boolean anyHeldBy(NodePod pod) {
        return pods.contains(pod.namespace() + "/" + pod.name());
    }

    /**
     * The container kubelet recorded with exactly these device ids of {@code resource}, if any; when an init
     * container's ids went on to an app container with the same count, the first listed.
     */
    public java.util.Optional<ContainerKey> holderOf(String resource, List<String> ids) {
        if (ids.isEmpty()) {
            return java.util.Optional.empty();
        }
        if (bySmallestId == null) { // device ids are unique among live containers, so the smallest one names its holder
            bySmallestId = new java.util.HashMap<>();
            kubelet.forEach((k, byResource) -> byResource.forEach((r, held) -> {
                if (!held.isEmpty()) {
                    bySmallestId
                            .computeIfAbsent(
                                    r + " " + java.util.Collections.min(held), x -> new java.util.ArrayList<>())
                            .add(k);
                }
            }));
        }
        // Several containers share ids when kubelet hands an init container's devices on to the next container.
        Set<String> wanted = new HashSet<>(ids);
        return bySmallestId.getOrDefault(resource + " " + java.util.Collections.min(ids), List.of()).stream()
                .filter(k -> new HashSet<>(kubelet.get(k).get(resource)).equals(wanted))
                .findFirst();
    }

    /** Every container kubelet reports holding any of our resources. */
    public Set<ContainerKey> kubeletHolders() {
        return kubelet.keySet();
    }
}
