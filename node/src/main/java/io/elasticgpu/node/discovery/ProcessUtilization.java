package io.elasticgpu.node.discovery;

/**
 * One process's use of a card in NVML's latest sample. Immutable.
 *
 * @param pid             the process id in the host's pid namespace (NVML's view)
 * @param card            NVML's index of the card
 * @param smPercent       how much of the sample period the process had kernels on the SMs, 0..100
 * @param memoryPercent   how much of the sample period the process read or wrote card memory, 0..100
 * @param timestampMicros when NVML took the sample, CPU time in microseconds since the epoch; what the next
 *                        {@link GpuBackend#utilization} call passes to get only newer samples
 */
public record ProcessUtilization(int pid, int card, int smPercent, int memoryPercent, long timestampMicros) {

    public ProcessUtilization {
        if (card < 0) {
            throw new IllegalArgumentException("process %d: card must be >= 0, was %d".formatted(pid, card));
        }
    }
}
