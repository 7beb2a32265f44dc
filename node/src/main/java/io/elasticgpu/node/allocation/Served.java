package io.elasticgpu.node.allocation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which containers hold which of our resources: kubelet's records (pod-resources {@code List}) plus the calls this
 * agent answered that kubelet has not recorded yet. kubelet's part is indexed once per read
 * ({@link Index}), so that a call costs what its own calls in flight cost, not what kubelet lists.
 */
public final class Served {

    private final Index kubelet;
    private final InFlight inFlight;

    /** Calls answered that kubelet has not recorded yet. */
    interface InFlight {

        boolean holds(ContainerKey container, String resource);

        boolean anyFor(PodName pod);
    }

    /**
     * kubelet's records as {@link Index} indexed them, and the calls in flight: not copied, so this is valid while the
     * caller does not change them (the allocator's lock).
     */
    Served(Index kubelet, InFlight inFlight) {
        this.kubelet = kubelet;
        this.inFlight = inFlight;
    }

    public boolean holds(ContainerKey key, String resource) {
        return kubelet.holds(key, resource) || inFlight.holds(key, resource);
    }

    public boolean anyHeldBy(NodePod pod) {
        PodName name = PodName.of(pod);
        return kubelet.pods.contains(name) || inFlight.anyFor(name);
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

        private record DeviceId(String resource, String id) {}

        private final Map<ContainerKey, Map<String, List<String>>> records;
        private final Map<ContainerKey, Map<String, Set<String>>> holding = new HashMap<>();
        private final Set<PodName> pods = new HashSet<>();
        private final Map<DeviceId, List<ContainerKey>> byId = new HashMap<>();

        Index(Map<ContainerKey, Map<String, List<String>>> records) {
            this.records = Map.copyOf(records);
            records.forEach((k, byResource) -> byResource.forEach((r, ids) -> {
                if (!ids.isEmpty()) {
                    holding.computeIfAbsent(k, x -> new HashMap<>()).put(r, Set.copyOf(ids));
                    pods.add(PodName.of(k));
                    for (String id : ids) {
                        byId.computeIfAbsent(new DeviceId(r, id), x -> new ArrayList<>(1))
                                .add(k);
                    }
                }
            }));
        }

        /** The records as read (immutable). */
        Map<ContainerKey, Map<String, List<String>>> records() {
            return records;
        }

        boolean holds(ContainerKey key, String resource) {
            Map<String, Set<String>> held = holding.get(key);
            return held != null && held.containsKey(resource);
        }

        /** A look-up per id: kubelet lists a container's ids in any order. */
        Optional<ContainerKey> holderOf(String resource, List<String> ids) {
            if (ids.isEmpty()) {
                return Optional.empty();
            }
            // Several containers share ids when kubelet hands an init container's devices on to the next container.
            for (ContainerKey k : byId.getOrDefault(new DeviceId(resource, ids.getFirst()), List.of())) {
                Set<String> held = holding.get(k).get(resource);
                if (held.containsAll(ids) && (held.size() == ids.size() || held.size() == new HashSet<>(ids).size())) {
                    return Optional.of(k);
                }
            }
            return Optional.empty();
        }
    }
}
