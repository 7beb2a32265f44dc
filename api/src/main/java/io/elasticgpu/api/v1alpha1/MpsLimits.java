package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one share becomes under CUDA MPS, written once for the admission webhook (which refuses a share MPS cannot
 * hold) and the node agent (which sets it on the share's own MPS control daemon). MPS limits each client process, not
 * a group of processes; so a share is divided evenly among the CUDA processes its holder declares it runs
 * ({@value #PROCESSES_ANNOTATION}, default 1): each process gets {@code percent / processes} of the compute and, on
 * each card, {@code memory / processes} less a reserve for its CUDA context ({@link #DEFAULT_CONTEXT_RESERVE_MIB} by
 * default), which MPS's pinned memory limit does not count; the node agent ends a process beyond the declared count.
 * Every share held through MPS has a memory part: a share without one would let its processes take all of the card's
 * memory from the shares beside it. Immutable.
 *
 * @param memoryMib     the pinned device memory limit of each process, per card in the share's card order: its part of
 *                      the share's memory less the context reserve, at least 1 MiB
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
    /** The flag of the node agent and the controller that sets the context reserve. */
    public static final String CONTEXT_RESERVE_FLAG = "--mps-context-reserve-mib";

    public MpsLimits {
        memoryMib = List.copyOf(requireNonNull(memoryMib, "memoryMib"));
        if (memoryMib.isEmpty() || memoryMib.stream().anyMatch(m -> m < 1)) {
            throw new IllegalArgumentException(
                    "MPS limits: memory must be 1 or more MiB per process on each card, was " + memoryMib);
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
     * Memory is in whole MiB (MPS's {@code M} unit): each process's part of the share's memory on the card, less
     * {@code contextReserveMib} for its CUDA context; compute in whole percent. Both are rounded down, so that no
     * process gets more than its part. A share with no compute part ({@code milli} 0) limits memory only; a share
     * with no memory part ({@code memoryMib} 0) is refused.
     *
     * @param contextReserveMib MiB of each process's part left out of its memory limit for its CUDA context, which
     *                          MPS does not count: 0..{@value #MAX_CONTEXT_RESERVE_MIB}
     *                          ({@value #CONTEXT_RESERVE_FLAG}, {@link #DEFAULT_CONTEXT_RESERVE_MIB} by default)
     * @throws IllegalArgumentException when MPS cannot hold the share: no memory part, a memory part of no more than
     * the reserve (less than 1 MiB left) or a compute part of less than 1 % per process, or a whole card (whole cards
     * never go through MPS); the message says what to change
     */
    public static MpsLimits of(List<Share> shares, int processes, long contextReserveMib) {
        if (shares.isEmpty()) {
            throw new IllegalArgumentException("MPS limits: the share names no card");
        }
        checkProcesses(processes);
        if (contextReserveMib < 0 || contextReserveMib > MAX_CONTEXT_RESERVE_MIB) {
            throw new IllegalArgumentException("%s must be 0..%d, was %d"
                    .formatted(CONTEXT_RESERVE_FLAG, MAX_CONTEXT_RESERVE_MIB, contextReserveMib));
        }
        Share first = shares.getFirst();
        if (shares.stream().anyMatch(s -> s.milli() >= 1000)) {
            throw new IllegalArgumentException(
                    "MPS limits: a whole card is not shared through MPS (card %d)".formatted(first.card()));
        }
        long smallest = smallestMemoryMib(processes, contextReserveMib);
        List<Long> memory = new ArrayList<>();
        for (Share s : shares) {
            if (s.memoryMib() <= 0) {
                throw new IllegalArgumentException(("the share on card %d asks %s and no memory; under MPS every"
                                + " share needs memory, or its processes could take all of the card's memory from"
                                + " the shares beside it: add %s (at least %d MiB for %s)")
                        .formatted(
                                s.card(),
                                s.milli() > 0 ? percentText(s.milli()) + " % of compute" : "no compute",
                                ResourceNames.GPU_MEMORY,
                                smallest,
                                processesText(processes)));
            }
            long limit = s.memoryMib() / processes - contextReserveMib;
            if (limit < 1) {
                throw new IllegalArgumentException(memoryRefusal(s, processes, contextReserveMib));
            }
            memory.add(limit);
        }
        return new MpsLimits(memory, threadPercent(first.milli(), processes), processes);
    }

    /**
     * The active thread percentage of each of {@code processes} processes of a share of {@code milli} thousandths of
     * a card: 100 for no compute part (0). Alone, it checks the compute of a share whose memory has no MiB yet (a
     * percent of a card not chosen yet); {@link #of} checks the rest when the card is known.
     *
     * @throws IllegalArgumentException when it is less than 1 % per process, or the count is not 1..
     *                                  {@value #MAX_PROCESSES}; the message says what to change
     */
    public static int threadPercent(int milli, int processes) {
        checkProcesses(processes);
        if (milli <= 0) {
            return 100;
        }
        int percent = milli / 10 / processes;
        if (percent < 1) {
            throw new IllegalArgumentException(("a compute share of %s %% cannot be divided among %d processes (MPS"
                            + " limits each process to whole percent); ask for at least %d %% or lower %s")
                    .formatted(percentText(milli), processes, processes, PROCESSES_ANNOTATION));
        }
        return percent;
    }

    /**
     * The least memory on each card a share held by {@code processes} processes can ask: 1 MiB for each process
     * beyond its context reserve.
     */
    public static long smallestMemoryMib(int processes, long contextReserveMib) {
        return processes * (contextReserveMib + 1);
    }

    /**
     * Why {@code s} leaves a process less than 1 MiB: the least memory that does for this many processes, and the
     * most processes this memory does for, if any.
     */
    private static String memoryRefusal(Share s, int processes, long reserve) {
        long most = s.memoryMib() / (reserve + 1); // processes whose part is above the reserve: at least 1 MiB each
        String fix = "ask for at least %d MiB".formatted(smallestMemoryMib(processes, reserve))
                + (most >= 1 ? " or lower %s to %d".formatted(PROCESSES_ANNOTATION, most) : "");
        if (reserve == 0) {
            return ("a share of %d MiB on card %d cannot be divided among %d processes (MPS limits each process to"
                            + " whole MiB); %s")
                    .formatted(s.memoryMib(), s.card(), processes, fix);
        }
        return ("a share of %d MiB on card %d gives each of its %s %d MiB, no more than the %d MiB kept out of a"
                        + " process's MPS memory limit for its CUDA context (which MPS does not count; %s); %s")
                .formatted(
                        s.memoryMib(),
                        s.card(),
                        processesText(processes),
                        s.memoryMib() / processes,
                        reserve,
                        CONTEXT_RESERVE_FLAG,
                        fix);
    }

    private static String processesText(int processes) {
        return processes == 1 ? "1 process" : processes + " processes";
    }

    private static void checkProcesses(int processes) {
        if (processes < 1 || processes > MAX_PROCESSES) {
            throw new IllegalArgumentException(
                    "%s must be 1..%d, was %d".formatted(PROCESSES_ANNOTATION, MAX_PROCESSES, processes));
        }
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
