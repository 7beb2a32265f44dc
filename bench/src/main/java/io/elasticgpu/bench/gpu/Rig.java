package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuProcess;
import io.elasticgpu.node.discovery.Hardware;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * What every layout's run shares: the card, NVML, how probes start, the fake pods' cgroups, the MPS programs, the
 * check's root, and the unlimited rate the fractions are of.
 *
 * @param unlimited the matmul rate of one plain process with the card to itself, or null when it was not measured
 */
record Rig(
        GpuBackend nvml,
        Hardware hardware,
        Gpu card,
        Probes probes,
        PodCgroups cgroups,
        Path control,
        Path nvidiaSmi,
        Path root,
        Double unlimited) {

    /** How long a probe may take to print its next line. */
    static final Duration LINE = Duration.ofSeconds(40);
    /** How long each probe multiplies matrices. */
    static final double MATMUL_SECONDS = 5;
    /** How often the agent's isolation loop runs in the check. */
    static final Duration CHECK_EVERY = Duration.ofMillis(500);
    /** The longest one run of the MPS control program may take. */
    static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);
    /** The CUDA context reserve the agent is started with (its default). */
    static final long CONTEXT_RESERVE_MIB = 1024;
    /** The /dev/shm size the agent is started with (its default). */
    static final long SHM_MIB = 64;

    /** Each process on card 0 with the memory NVML says it holds there (MiB, -1 where NVML cannot say). */
    Map<Long, Long> onCard() {
        Map<Long, Long> out = new HashMap<>();
        for (GpuProcess p : nvml.processes(card.index())) {
            out.merge((long) p.pid(), p.usedMemoryMib(), (a, b) -> a < 0 || b < 0 ? -1 : a + b);
        }
        return out;
    }

    /** {@code tflops} as a fraction of the unlimited rate, or null. */
    Double fraction(Double tflops) {
        return tflops == null || unlimited == null || unlimited <= 0
                ? null
                : GpuIsolationCheck.round(tflops / unlimited, 3);
    }
}
