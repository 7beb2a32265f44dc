package io.elasticgpu.node.allocation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which containers hold which of our resources: kubelet's records (pod-resources {@code List}) plus the calls this
 * agent answered that kubelet has not recorded yet. Immutable once built. kubelet's part is indexed once per read
 * ({@link Index}), so that a call costs what its own calls in flight cost, not what kubelet lists.
 */
public final class Served {

    private final Index kubelet;
    private final Map<ContainerKey, Set<String>> inFlight;
    private final Set<PodName> inFlightPods;

    /**
     * @param kubelet  device ids per resource per container, as kubelet reports them
     * @param inFlight containers and the resource of calls answered but not yet in kubelet's records
     */
    public Served(Map<ContainerKey, Map<String, List<String>>> kubelet, Map<ContainerKey, Set<String>> inFlight) {
        this(new Index(kubelet), inFlight);
    }

    /** kubelet's records as {@link Index#of} indexed them, and the calls in flight (not copied: the caller's). */
    Served(Index kubelet, Map<ContainerKey, Set<String>> inFlight) {
        this.kubelet = kubelet;
        this.inFlight = Collections.unmodifiableMap(inFlight);
        this.inFlightPods = new HashSet<>();
        inFlight.forEach((k, resources) -> {
            if (!resources.isEmpty()) {
                inFlightPods.add(PodName.of(k));
            }
        });
    }

    public static Served none() {
        return new Served(Map.of(), Map.of());
    }

    public boolean holds(ContainerKey key, String resource) {
        return kubelet.holds(key, resource)
                || inFlight.getOrDefault(key, Set.of()).contains(resource);
    }

    public boolean anyHeldBy(NodePod pod) {
        PodName name = PodName.of(pod);
        return kubelet.pods.contains(name) || inFlightPods.contains(name);
    }

    /**
     * The container kubelet recorded with exactly these device ids of {@code resource}, if any; when an init
     * container's ids went on to an app container with the same count, the first listed.
     */
    public Optional<ContainerKey> holderOf(String resource, List<String> ids) {
        return kubelet.holderOf(resource, ids);
    }

    /** Every container kubelet reports holding any of our resources. */
    public Set<ContainerKey> kubeletHolders() {
        return kubelet.records.keySet();
    }

    /** kubelet's records of one read, indexed for lookups. Immutable; made once per read, shared by the calls. */
    static final class Index {

        private final Map<ContainerKey, Map<String, List<String>>> records;
        private final Map<ContainerKey, Set<String>> holding = new HashMap<>();
        private final Set<PodName> pods = new HashSet<>();
        private final Map<String, List<ContainerKey>> bySmallestId = new HashMap<>(); // "resource smallest-id"

        Index(Map<ContainerKey, Map<String, List<String>>> records) {
            this.records = Map.copyOf(records);
            records.forEach((k, byResource) -> byResource.forEach((r, ids) -> {
                if (!ids.isEmpty()) {
                    holding.computeIfAbsent(k, x -> new HashSet<>()).add(r);
                    pods.add(PodName.of(k));
                    // device ids are unique among live containers, so the smallest one names its holder
                    bySmallestId
                            .computeIfAbsent(r + " " + Collections.min(ids), x -> new ArrayList<>())
                            .add(k);
                }
            }));
        }

        /** The records as read (immutable). */
        Map<ContainerKey, Map<String, List<String>>> records() {
            return records;
        }

        boolean holds(ContainerKey key, String resource) {
            return holding.getOrDefault(key, Set.of()).contains(resource);
        }

        Optional<ContainerKey> holderOf(String resource, List<String> ids) {
            if (ids.isEmpty()) {
                return Optional.empty();
            }
            // Several containers share ids when kubelet hands an init container's devices on to the next container.
            List<ContainerKey> candidates = bySmallestId.getOrDefault(resource + " " + Collections.min(ids), List.of());
            if (candidates.isEmpty()) {
                return Optional.empty();
            }
            Set<String> wanted = new HashSet<>(ids);
            return candidates.stream()
                    .filter(k -> new HashSet<>(records.get(k).get(resource)).equals(wanted))
                    .findFirst();
        }
    }
}
