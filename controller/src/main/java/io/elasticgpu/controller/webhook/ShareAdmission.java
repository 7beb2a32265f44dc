package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether the GPU slices a pod asks can be held to their shares the way the node agents hold them: a pod asking a
 * slice (read by {@link PodAsks}, the one reading of asks) is refused when its
 * {@value MpsLimits#PROCESSES_ANNOTATION} annotation is not a process count (whatever the isolation), or, with
 * {@link Isolation#MPS}, when {@link MpsLimits#of} cannot divide a container's share among that many processes. Whole
 * cards never go through MPS and are never refused here; nor is a pod whose asks cannot be read (the extender and the
 * node agent say what is wrong with those, as before). A pure function of the pod.
 *
 * @param isolation how the node agents hold slices to their shares ({@code --isolation} of the agents)
 * @param units     how quantities read ({@code --memory-block-mib}, {@code --aliyun-unit-mib}: the agents' values)
 */
public record ShareAdmission(Isolation isolation, PodAsks.Units units) {

    /** What holds each slice to its share on the nodes: the node agent's {@code --isolation}. */
    public enum Isolation {
        /** Nothing: a share is what the container is told. */
        NONE,
        /** A CUDA MPS control daemon per share, with the share's limits. */
        MPS;

        /**
         * {@code none} or {@code mps}, as the flag is written.
         *
         * @throws IllegalArgumentException naming {@code flag} for any other value
         */
        public static Isolation of(String value, String flag) {
            return switch (value == null ? "" : value.strip().toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "mps" -> MPS;
                default -> throw new IllegalArgumentException("%s must be none or mps, was %s".formatted(flag, value));
            };
        }
    }

    /** More cards than any node has. */
    static final int MAX_CARDS = 64;

    /** No isolation, quantities in the default units: only the process annotation is checked. */
    public static final ShareAdmission NONE = new ShareAdmission(Isolation.NONE, PodAsks.Units.DEFAULT);

    public ShareAdmission {
        Objects.requireNonNull(isolation, "isolation");
        Objects.requireNonNull(units, "units");
    }

    /**
     * Why the pod cannot be admitted, if it cannot.
     *
     * @param podName how messages name the pod ({@code namespace/name})
     * @param pod     the pod as it will be admitted (with the claims webhook's patch applied)
     */
    public Optional<String> refusal(String podName, Pod pod) {
        List<GpuAsk> slices = new ArrayList<>();
        try {
            for (GpuAsk ask : PodAsks.of(pod, units)) {
                if (!ask.whole()) {
                    slices.add(ask);
                }
            }
        } catch (InvalidAskException e) {
            return Optional.empty(); // not this webhook's refusal: the extender and the node agent name the problem
        }
        if (slices.isEmpty()) {
            return Optional.empty();
        }
        Map<String, String> annotations =
                pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
        int processes;
        try {
            processes = MpsLimits.processes(annotations);
        } catch (IllegalArgumentException e) {
            return Optional.of(("pod %s: %s; set it to how many CUDA processes each container with a GPU slice runs at"
                            + " once, or remove it for 1")
                    .formatted(podName, e.getMessage()));
        }
        if (isolation == Isolation.NONE) {
            return Optional.empty();
        }
        for (GpuAsk ask : slices) {
            try {
                MpsLimits.of(shares(ask), processes);
            } catch (IllegalArgumentException e) {
                return Optional.of(
                        ("pod %s: container %s asks a GPU slice that CUDA MPS cannot hold (this cluster holds"
                                        + " slices to their shares with MPS): %s")
                                .formatted(podName, ask.container(), e.getMessage()));
            }
        }
        return Optional.empty();
    }

    /**
     * The share an ask gives on each of its cards, as the node agent will hold it: one per card, in card order, its
     * uuid not known yet. A memory share in percent of the card ({@code nvidia.com/gpumem-percentage}) has no MiB
     * until the card is chosen, and is checked for its compute only. Every card of an ask gets the same share, so
     * the verdict does not depend on how many there are: at most {@value #MAX_CARDS} are built, so that an absurd
     * count (which no node can place) builds no huge list.
     */
    static List<Share> shares(GpuAsk ask) {
        List<Share> shares = new ArrayList<>();
        for (int card = 0; card < Math.min(ask.cards(), MAX_CARDS); card++) {
            shares.add(new Share(card, "", ask.milli(), ask.memoryMib()));
        }
        return shares;
    }
}
