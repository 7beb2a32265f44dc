package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;
import java.util.Map;

/**
 * What one share becomes under CUDA MPS, written once for the admission webhook (which refuses a share MPS cannot
 * hold) and the node agent (which sets it on the share's own MPS control daemon). MPS limits each client process, not
 * a group of processes; so a share is divided evenly among the CUDA processes its holder declares it runs
 * ({@value #PROCESSES_ANNOTATION}, default 1): each process gets {@code memory / processes} on each card and
 * {@code percent / processes} of the compute, and the node agent ends a process beyond the declared count. Immutable.
 *
 * @param memoryMib     the pinned device memory limit of each process, per card in the share's card order; 0 where the
 *                      share limits no memory on that card
 * @param threadPercent each process's active thread percentage (1..100); 100 when the share limits no compute
 * @param processes     how many CUDA processes may hold the share at once
 */
public record MpsLimits(List<Long> memoryMib, int threadPercent, int processes) {

    /** On a pod (or a ResourceClaim): how many CUDA processes share its GPU share at once; 1 when absent. */
    public static final String PROCESSES_ANNOTATION = "elasticgpu.io/gpu-processes";
    /** MPS serves at most 48 client processes per card (Volta and later). */
    public static final int MAX_PROCESSES = 48;
    /**
     * MiB of each process's share kept out of its MPS memory limit for its CUDA context, by default: MPS's pinned
     * limit does not count the context, which NVML showed at about 1 GiB per process on an H100 (driver 580, CUDA 13,
     * PyTorch 2.11; docs/results/gpu-isolation.md).
     */
    public static final long DEFAULT_CONTEXT_RESERVE_MIB = 1024;
    /** The most a context reserve may be set to. */
    public static final long MAX_CONTEXT_RESERVE_MIB = 16384;

    public MpsLimits {
        memoryMib = List.copyOf(requireNonNull(memoryMib, "memoryMib"));
        if (memoryMib.isEmpty() || memoryMib.stream().anyMatch(m -> m < 0)) {
            throw new IllegalArgumentException(
                    "MPS limits: memory must be 0 (no limit) or more MiB per card, was " + memoryMib);
        }
        if (threadPercent < 1 || threadPercent > 100) {
            throw new IllegalArgumentException("MPS limits: thread percentage must be 1..100, was " + threadPercent);
        }
        if (processes < 1 || processes > MAX_PROCESSES) {
            throw new IllegalArgumentException(
                    "MPS limits: processes must be 1..%d, was %d".formatted(MAX_PROCESSES, processes));
        }
    }

    /**
     * The limits of each process of a share held on {@code shares} (one per card) by {@code processes} processes.
     * Memory is in whole MiB (MPS's {@code M} unit); compute in whole percent, rounded down so that no process gets
     * more than its part. A share with no compute part ({@code milli} 0) limits memory only.
     *
     * @throws IllegalArgumentException when MPS cannot hold the share: a part of less than 1 MiB or 1 % per process,
     * or a whole card (whole cards never go through MPS); the message says what to change
     */
    public static MpsLimits of(List<Share> shares, int processes) {
        if (shares.isEmpty()) {
            throw new IllegalArgumentException("MPS limits: the share names no card");
        }
        if (processes < 1 || processes > MAX_PROCESSES) {
            throw new IllegalArgumentException(
                    "%s must be 1..%d, was %d".formatted(PROCESSES_ANNOTATION, MAX_PROCESSES, processes));
        }
        Share first = shares.getFirst();
        if (shares.stream().anyMatch(s -> s.milli() >= 1000)) {
            throw new IllegalArgumentException(
                    "MPS limits: a whole card is not shared through MPS (card %d)".formatted(first.card()));
        }
        List<Long> memory = shares.stream().map(s -> s.memoryMib() / processes).toList();
        for (int i = 0; i < shares.size(); i++) {
            if (shares.get(i).memoryMib() > 0 && memory.get(i) < 1) {
                throw new IllegalArgumentException(("a share of %d MiB on card %d cannot be divided among %d processes"
                                + " (MPS limits each process to whole MiB); ask for more memory or lower %s")
                        .formatted(shares.get(i).memoryMib(), shares.get(i).card(), processes, PROCESSES_ANNOTATION));
            }
        }
        int percent = 100;
        if (first.milli() > 0) {
            percent = first.milli() / 10 / processes;
            if (percent < 1) {
                throw new IllegalArgumentException(
                        ("a compute share of %s %% cannot be divided among %d processes (MPS limits"
                                        + " each process to whole percent); ask for at least %d %% or lower %s")
                                .formatted(percentText(first.milli()), processes, processes, PROCESSES_ANNOTATION));
            }
        }
        return new MpsLimits(memory, percent, processes);
    }

    /**
     * The process count a holder declares in its annotations: {@value #PROCESSES_ANNOTATION}, 1 when absent.
     *
     * @throws IllegalArgumentException when the value is not a whole number 1..{@value #MAX_PROCESSES}
     */
    public static int processes(Map<String, String> annotations) {
        String value = annotations == null ? null : annotations.get(PROCESSES_ANNOTATION);
        if (value == null) {
            return 1;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1 && n <= MAX_PROCESSES) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new IllegalArgumentException(
                "annotation %s must be a whole number 1..%d (how many CUDA processes share the GPU share), was \"%s\""
                        .formatted(PROCESSES_ANNOTATION, MAX_PROCESSES, value));
    }

    private static String percentText(int milli) {
        return milli % 10 == 0 ? Integer.toString(milli / 10) : "%d.%d".formatted(milli / 10, milli % 10);
    }
}
