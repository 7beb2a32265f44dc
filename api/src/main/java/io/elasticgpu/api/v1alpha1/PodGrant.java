package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
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
 * A whole card shows its full compute (1000 milli) and memory. A container that asked compute in TFLOPS shows them
 * beside the share they became: {@code {"card": 0, ..., "milli": 110, "memoryMiB": 8192, "tflops": 100,
 * "precision": "bf16", "tflopsGiven": 108.84}}.
 */
public record PodGrant(String node, Map<String, List<Share>> containers) {

    /**
     * What a container holds on one card; when it asked compute in TFLOPS, also what it asked ({@code tflops} of
     * {@code precision}), of which {@code milli} is the share on this card's model, and the TFLOPS that share gives
     * ({@code tflopsGiven}, at least those asked: the share is rounded up to a percent).
     */
    public record Share(
            int card,
            String uuid,
            int milli,
            @JsonProperty("memoryMiB") long memoryMib,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer tflops,
            @JsonInclude(JsonInclude.Include.NON_NULL) String precision,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double tflopsGiven) {
        public Share {
            requireNonNull(uuid, "uuid");
            if (tflops != null && (precision == null || tflopsGiven == null)) {
                throw new IllegalArgumentException(
                        "card %d: a share asked in TFLOPS (%d) names its precision and the TFLOPS given"
                                .formatted(card, tflops));
            }
        }

        /** As a record shows itself, leaving out the TFLOPS of a share not asked in TFLOPS. */
        @Override
        public String toString() {
            return "Share[card=%d, uuid=%s, milli=%d, memoryMib=%d%s]"
                    .formatted(
                            card,
                            uuid,
                            milli,
                            memoryMib,
                            asksTflops()
                                    ? ", tflops=%d, precision=%s, tflopsGiven=%s"
                                            .formatted(tflops, precision, tflopsGiven)
                                    : "");
        }

        /** Whether the container asked this share's compute in TFLOPS. */
        public boolean asksTflops() {
            return tflops != null;
        }

        /**
         * The same share on another card of the node (kubelet handed the container other cards than planned): what
         * was asked and given, TFLOPS included, stays.
         */
        public Share movedTo(int otherCard, String otherUuid) {
            return new Share(otherCard, otherUuid, milli, memoryMib, tflops, precision, tflopsGiven);
        }

        /** A share asked as a share. */
        public Share(int card, String uuid, int milli, long memoryMib) {
            this(card, uuid, milli, memoryMib, null, null, null);
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
