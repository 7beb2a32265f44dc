package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.ComputeAsk;
import io.elasticgpu.core.model.GpuModel;
import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.core.model.ModelTable;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.math.BigDecimal;
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
 * {@link Isolation#MPS}, when {@link MpsLimits#of} cannot hold a container's share: it has no memory part, or it cannot
 * be divided among that many processes with at least 1 MiB each beyond the context reserve and 1 % of compute each.
 * Whole cards never go through MPS and are never refused here; nor is a pod whose asks cannot be read (the extender and
 * the node agent say what is wrong with those, as before). A pure function of the pod.
 *
 * <p>A share asked in TFLOPS has no percent until the extender picks the card: it is a different percent on each model
 * ({@link ModelTable#ask}). It is refused when MPS cannot divide it on any model the table offers it on, which is
 * when it cannot be divided on the model where it is the largest share (the lowest peak in its precision): such a pod
 * could never run. Where it can be divided on some models only (a small share of a card with a high peak, such as an
 * H100), it is admitted with a warning naming the others ({@link #warnings}): which model it lands on is the
 * extender's choice, and if it is one of those, the node agent refuses the container at allocation with the same
 * MPS message.
 *
 * <p>A share whose memory is a percent of the card (HAMi's {@code gpumem-percentage}) has no MiB until the card is
 * chosen: it is checked for its compute only, and the node agent checks its memory with the card's MiB.
 *
 * @param isolation         how the node agents hold slices to their shares ({@code --isolation} of the agents)
 * @param contextReserveMib MiB of each process's share the node agents keep out of its MPS memory limit for its CUDA
 *                          context ({@code --mps-context-reserve-mib} of the agents)
 * @param units             how quantities read ({@code --memory-block-mib}, {@code --aliyun-unit-mib}: the agents'
 *                          values)
 * @param models            the card models TFLOPS asks are converted with (the extender's table)
 */
public record ShareAdmission(Isolation isolation, long contextReserveMib, PodAsks.Units units, ModelTable models) {

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

    /**
     * @throws IllegalArgumentException naming {@code --mps-context-reserve-mib} when the reserve is not
     *                                  0..{@value MpsLimits#MAX_CONTEXT_RESERVE_MIB}
     */
    public ShareAdmission {
        Objects.requireNonNull(isolation, "isolation");
        Objects.requireNonNull(units, "units");
        Objects.requireNonNull(models, "models");
        if (contextReserveMib < 0 || contextReserveMib > MpsLimits.MAX_CONTEXT_RESERVE_MIB) {
            throw new IllegalArgumentException("%s must be 0..%d, was %d"
                    .formatted(MpsLimits.CONTEXT_RESERVE_FLAG, MpsLimits.MAX_CONTEXT_RESERVE_MIB, contextReserveMib));
        }
    }

    /** With the shipped model table. */
    public ShareAdmission(Isolation isolation, long contextReserveMib, PodAsks.Units units) {
        this(isolation, contextReserveMib, units, ModelTable.shipped());
    }

    /** With the default context reserve ({@link MpsLimits#DEFAULT_CONTEXT_RESERVE_MIB}) and the shipped model table. */
    public ShareAdmission(Isolation isolation, PodAsks.Units units) {
        this(isolation, MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB, units);
    }

    /** A container asking a MIG profile ({@code nvidia.com/mig-<profile>}) that no card model has. */
    private static Optional<String> migRefusal(String podName, Pod pod) {
        for (Container c : PodAsks.containers(pod)) {
            if (c.getResources() == null || c.getResources().getLimits() == null) {
                continue;
            }
            for (String resource : c.getResources().getLimits().keySet()) {
                if (resource.startsWith(ResourceNames.NVIDIA_MIG_PREFIX)) {
                    Optional<String> why =
                            MigGeometry.unknown(resource.substring(ResourceNames.NVIDIA_MIG_PREFIX.length()));
                    if (why.isPresent()) {
                        return Optional.of("pod %s, container %s asks %s: %s"
                                .formatted(podName, c.getName(), resource, why.get()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why the pod cannot be admitted, if it cannot.
     *
     * @param podName how messages name the pod ({@code namespace/name})
     * @param pod     the pod as it will be admitted (with the claims webhook's patch applied)
     */
    public Optional<String> refusal(String podName, Pod pod) {
        Optional<String> mig = migRefusal(podName, pod);
        if (mig.isPresent()) {
            return mig;
        }
        List<GpuAsk> sliceAsks = new ArrayList<>();
        try {
            for (GpuAsk ask : PodAsks.of(pod, units)) {
                if (!ask.whole()) {
                    sliceAsks.add(ask);
                }
            }
        } catch (InvalidAskException e) {
            return Optional.empty(); // not this webhook's refusal: the extender and the node agent name the problem
        }
        if (sliceAsks.isEmpty()) {
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
        for (GpuAsk ask : sliceAsks) {
            try {
                check(ask, ask.milli(), processes);
            } catch (IllegalArgumentException e) {
                return Optional.of(
                        ("pod %s: container %s asks a GPU slice that CUDA MPS cannot hold (this cluster holds"
                                        + " slices to their shares with MPS): %s")
                                .formatted(podName, ask.container(), e.getMessage()));
            }
            Optional<ComputeAsk> computeAsk = tflops(ask);
            if (computeAsk.isPresent()) {
                GpuModel largest = models.byShareDescending(computeAsk.get()).getFirst();
                if (!divisible(ask, computeAsk.get(), largest, processes)) {
                    return Optional.of(tflopsRefusal(podName, ask, computeAsk.get(), largest, processes));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * What the webhook admits the pod with, beside its answer: for each container asking TFLOPS that MPS can divide on
     * some models but not on others, which models those are. Empty without MPS, or for a pod it refuses.
     */
    public List<String> warnings(String podName, Pod pod) {
        if (isolation == Isolation.NONE || refusal(podName, pod).isPresent()) {
            return List.of();
        }
        List<String> warnings = new ArrayList<>();
        int processes;
        List<GpuAsk> asks;
        try {
            processes = MpsLimits.processes(
                    pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations());
            asks = PodAsks.of(pod, units);
        } catch (IllegalArgumentException | InvalidAskException e) {
            return List.of(); // not this webhook's to name, as in refusal
        }
        for (GpuAsk ask : asks) {
            Optional<ComputeAsk> computeAsk = ask.whole() ? Optional.empty() : tflops(ask);
            if (computeAsk.isEmpty()) {
                continue;
            }
            List<String> cannot = models.byShareDescending(computeAsk.get()).stream()
                    .filter(m -> !divisible(ask, computeAsk.get(), m, processes))
                    .map(m -> "%s (%d %%)".formatted(m.name(), computeAsk.get().milliOn(m.name()) / 10))
                    .toList();
            if (!cannot.isEmpty()) {
                warnings.add(("pod %s: container %s asks %d TFLOPS of %s, too small a share of %s for CUDA MPS to"
                                + " divide among %d processes; placed on such a card, the node agent refuses it:"
                                + " ask more TFLOPS or lower %s to run on any model")
                        .formatted(
                                podName,
                                ask.container(),
                                ask.tflops(),
                                computeAsk.get().precision().label(),
                                String.join(", ", cannot),
                                processes,
                                MpsLimits.PROCESSES_ANNOTATION));
            }
        }
        return warnings;
    }

    /** A slice's TFLOPS as the extender converts them; empty when not asked in TFLOPS, or unreadable (not ours). */
    private Optional<ComputeAsk> tflops(GpuAsk ask) {
        if (ask.tflops() <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(models.ask(ask.tflops(), ask.precision()));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // the extender refuses it and says why
        }
    }

    /**
     * Whether MPS can hold the share {@code ask} gives with {@code milli} of each card, by the node agents' rule.
     *
     * @throws IllegalArgumentException saying why not, and what to change
     */
    private void check(GpuAsk ask, int milli, int processes) {
        if (ask.memoryPercent() > 0) {
            // Memory in percent of the card has no MiB until the extender picks the card: its compute is checked here,
            // its memory by the node agent, which refuses it at allocation with the card's MiB if MPS cannot hold it.
            MpsLimits.threadPercent(milli, processes);
            return;
        }
        MpsLimits.of(shares(ask, milli), processes, contextReserveMib);
    }

    /** Whether MPS can divide the share {@code computeAsk} takes on a card of {@code model} among the processes. */
    private boolean divisible(GpuAsk ask, ComputeAsk computeAsk, GpuModel model, int processes) {
        try {
            check(ask, computeAsk.milliOn(model.name()), processes);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The ask's TFLOPS are too small a share even of {@code largest}, where they are the largest share: the message
     * names that share and the TFLOPS that would do there (the least whose share gives each process 1 %).
     */
    private static String tflopsRefusal(
            String podName, GpuAsk ask, ComputeAsk computeAsk, GpuModel largest, int processes) {
        BigDecimal peak = largest.peak(computeAsk.precision()).orElseThrow();
        String fix = "lower " + MpsLimits.PROCESSES_ANNOTATION;
        for (int t = computeAsk.tflops(); ; t++) {
            int milli = ComputeAsk.shareMilli(t, peak);
            if (milli < 0) {
                break; // a whole card or more: no TFLOPS ask does
            }
            if (milli / 10 / processes >= 1) {
                fix = "ask at least %d TFLOPS or %s".formatted(t, fix);
                break;
            }
        }
        return ("pod %s: container %s asks a GPU slice that CUDA MPS cannot hold (this cluster holds slices to their"
                        + " shares with MPS): %d TFLOPS of %s are at most %d %% of a card (of %s, whose %s peak %s is"
                        + " the lowest of the models that give it), which cannot be divided among %d processes (MPS"
                        + " limits each process to whole percent); %s")
                .formatted(
                        podName,
                        ask.container(),
                        computeAsk.tflops(),
                        computeAsk.precision().label(),
                        computeAsk.milliOn(largest.name()) / 10,
                        largest.name(),
                        computeAsk.precision().label(),
                        peak.toPlainString(),
                        processes,
                        fix);
    }

    /**
     * The share an ask gives on each of its cards, as the node agent will hold it: one per card, in card order, its
     * uuid not known yet. A memory share in percent of the card ({@code nvidia.com/gpumem-percentage}) has no MiB
     * until the card is chosen: its shares have memory 0, and {@link #refusal} checks its compute only. Every card of
     * an ask gets the same share, so
     * the verdict does not depend on how many there are: at most {@value #MAX_CARDS} are built, so that an absurd
     * count (which no node can place) builds no huge list.
     */
    static List<Share> shares(GpuAsk ask) {
        return shares(ask, ask.milli());
    }

    /** The same with {@code milli} of each card: what a TFLOPS ask becomes on one model. */
    static List<Share> shares(GpuAsk ask, int milli) {
        List<Share> shares = new ArrayList<>();
        for (int card = 0; card < Math.min(ask.cards(), MAX_CARDS); card++) {
            shares.add(new Share(card, "", milli, ask.memoryMib()));
        }
        return shares;
    }
}
