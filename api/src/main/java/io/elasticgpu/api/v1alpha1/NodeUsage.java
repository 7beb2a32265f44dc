package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What the processes on a node's cards use, as the node agent last measured them through NVML, published in the
 * node's {@link Annotations#USAGE} annotation beside what pods were granted ({@link PodGrant}). Immutable.
 *
 * <pre>{@code
 * {"measured": "2026-11-27T10:00:00Z",
 *  "containers": [{"namespace": "team-a", "pod": "train-0", "container": "main", "card": 0,
 *                  "memoryMiB": 20736, "smPercent": 41, "processes": 2}],
 *  "unattributed": [{"card": 0, "memoryMiB": 66, "processes": 1}]}
 * }</pre>
 *
 * @param measured     when (ISO-8601, UTC)
 * @param containers   per container and card: memory its processes hold, the SM utilization NVML attributes to them
 *                     (-1 where NVML names no process of theirs: under MPS it names the share's server, which the agent
 *                     counts for the share's holder), and how many processes
 * @param unattributed per card, processes of no pod on this node (the host's, or a pod the agent does not know)
 */
public record NodeUsage(String measured, List<ContainerUsage> containers, List<Unattributed> unattributed) {

    /** One container's use of one card. */
    public record ContainerUsage(
            String namespace,
            String pod,
            String container,
            int card,
            @JsonProperty("memoryMiB") long memoryMib,
            int smPercent,
            int processes) {
        public ContainerUsage {
            requireNonNull(namespace, "namespace");
            requireNonNull(pod, "pod");
            requireNonNull(container, "container");
        }
    }

    /** What no container of a known pod uses on one card. */
    public record Unattributed(
            int card, @JsonProperty("memoryMiB") long memoryMib, int processes) {}

    public NodeUsage {
        // measured is checked by fromJson, whose message names the annotation and what it expected
        containers = List.copyOf(containers == null ? List.of() : containers);
        unattributed = List.copyOf(unattributed == null ? List.of() : unattributed);
    }

    public String toJson() {
        return AnnotationJson.write(this, "usage");
    }

    /**
     * @throws IllegalArgumentException when {@code json} is not a usage annotation, saying what is wrong
     */
    public static NodeUsage fromJson(String json) {
        return AnnotationJson.read(
                json,
                NodeUsage.class,
                "annotation " + Annotations.USAGE,
                u -> u.measured() != null,
                "an object with \"measured\", \"containers\" and \"unattributed\"");
    }
}
