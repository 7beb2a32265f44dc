package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cards a pod holds, container by container, as the {@link Annotations#ALLOCATION} annotation says. Immutable.
 *
 * <pre>{@code
 * {"node": "gpu-node-03",
 *  "containers": {"train": [{"card": 0, "uuid": "GPU-5e1f...", "milli": 500, "memoryMiB": 8192}]}}
 * }</pre>
 *
 * A whole card shows its full compute (1000 milli) and memory.
 */
public record PodGrant(String node, Map<String, List<Share>> containers) {

    /** What a container holds on one card. */
    public record Share(
            int card,
            String uuid,
            int milli,
            @JsonProperty("memoryMiB") long memoryMib) {
        public Share {
            requireNonNull(uuid, "uuid");
        }
    }

    public PodGrant {
        requireNonNull(node, "node");
        Map<String, List<Share>> copy = new LinkedHashMap<>();
        requireNonNull(containers, "containers").forEach((k, v) -> copy.put(k, List.copyOf(v)));
        containers = java.util.Collections.unmodifiableMap(copy);
    }

    /** Every card index the pod holds anything on, each once, in first-seen order. */
    public List<Integer> cards() {
        return containers.values().stream()
                .flatMap(List::stream)
                .map(Share::card)
                .distinct()
                .toList();
    }

    public String toJson() {
        return AnnotationJson.write(this, "allocation");
    }

    /**
     * @throws IllegalArgumentException when {@code json} is not an allocation
     */
    public static PodGrant fromJson(String json) {
        return AnnotationJson.read(
                json,
                PodGrant.class,
                "allocation",
                a -> a.node() != null,
                "a JSON object with \"node\" and \"containers\"");
    }
}
