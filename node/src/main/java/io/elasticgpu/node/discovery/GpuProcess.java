package io.elasticgpu.node.discovery;

/**
 * A process holding memory on one card now, as NVML lists it. Immutable.
 *
 * @param pid           the process id in the host's pid namespace (NVML's view), not a container's
 * @param card          NVML's index of the card
 * @param usedMemoryMib the card memory the process holds, rounded up to whole MiB; -1 when NVML says the value is
 *                      not available
 */
public record GpuProcess(int pid, int card, long usedMemoryMib) {

    public GpuProcess {
        if (card < 0) {
            throw new IllegalArgumentException("process %d: card must be >= 0, was %d".formatted(pid, card));
        }
        if (usedMemoryMib < -1) {
            throw new IllegalArgumentException(
                    "process %d on card %d: usedMemoryMib must be >= 0, or -1 for not".formatted(pid, card)
                            + " available, was " + usedMemoryMib);
        }
    }
}
