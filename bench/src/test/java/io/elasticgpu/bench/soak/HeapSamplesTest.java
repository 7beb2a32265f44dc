package io.elasticgpu.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's memory figures: the heap after a full collection read from jcmd, and the slope a leak would show. */
class HeapSamplesTest {

    /** What {@code jcmd <pid> GC.heap_info} prints for the serial collector the chart runs. */
    private static final String SERIAL_HEAP_INFO = """
            13444:
            Command executed successfully
            DefNew     total 116224K, used 2048K [0x00000000e8000000, 0x00000000efe10000, 0x00000000f0000000)
             eden space 103360K,   0% used [0x00000000e8000000, 0x00000000e8000000, 0x00000000ee4f0000)
             from space 12864K,   0% used [0x00000000ee4f0000, 0x00000000ee4f0000, 0x00000000ef180000)
            Tenured    total 258048K, used 12800K [0x00000000f0000000, 0x00000000ffc00000, 0x0000000100000000)
             the  space 258048K,   4% used [0x00000000f0000000, 0x00000000f0c8bd28, 0x00000000ffc00000)
            """;

    @Test
    void theHeapUsedIsTheGenerationsUsedNotTheirSpacesAgain() {
        assertThat(HeapSamples.usedMib(SERIAL_HEAP_INFO)).hasValue((2048 + 12800) / 1024);
        assertThat(HeapSamples.usedMib("13444:\nnot a heap")).isEmpty();
    }

    @Test
    void aRestartIsNotGrowthButGrowthWithinEachProcessIs() {
        // Two processes, each flat, the second starting higher: one line through all would rise; neither leaks.
        List<HeapSamples.Sample> flat = List.of(
                new HeapSamples.Sample(1, 10, 50, 200),
                new HeapSamples.Sample(2, 10, 50, 200),
                new HeapSamples.Sample(3, 11, 90, 300),
                new HeapSamples.Sample(4, 11, 90, 300));
        assertThat(HeapSamples.pooledSlope(flat, HeapSamples.Sample::heapMib)).isZero();
        // Each process gains 2 MiB a minute: that is the slope, whatever their levels.
        List<HeapSamples.Sample> leaking = List.of(
                new HeapSamples.Sample(1, 10, 50, 200),
                new HeapSamples.Sample(2, 10, 52, 200),
                new HeapSamples.Sample(3, 11, 20, 300),
                new HeapSamples.Sample(4, 11, 22, 300),
                new HeapSamples.Sample(5, 11, 24, 300));
        assertThat(HeapSamples.pooledSlope(leaking, HeapSamples.Sample::heapMib))
                .isEqualTo(2.0);
        assertThat(HeapSamples.pooledSlope(List.of(), HeapSamples.Sample::heapMib))
                .isZero();
    }

    @Test
    void aCgroupCounterIsReadByName(@TempDir Path dir) throws Exception {
        Path v1 = Files.writeString(dir.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
        assertThat(MemoryCgroups.counter(v1, "oom_kill")).hasValue(3L);
        assertThat(MemoryCgroups.counter(v1, "oom")).isEmpty();
        assertThat(MemoryCgroups.counter(dir.resolve("absent"), "oom_kill")).isEmpty();
    }

    @Test
    void failoversAreSummedUpPerKindAgainstTheGoalForAnyPodAndForGpuPods() {
        var kills = List.of(
                new Failovers.Kill("EXTENDER_KILLED", 30, 9, 12.5, 20.0, -1, 40),
                new Failovers.Kill("EXTENDER_KILLED", 240, 8, 16.0, 16.5, -1, 10),
                new Failovers.Kill("EXTENDER_KILLED", 450, 8, 3.0, -1, -1, 10),
                new Failovers.Kill("SCHEDULER_KILLED", 60, 3, -1, -1, -1, 5));
        var summary = Failovers.summary(kills);
        assertThat(summary).containsOnlyKeys("EXTENDER_KILLED");
        assertThat(summary.get("EXTENDER_KILLED"))
                .as("any pod: 3.0, 12.5, 16.0; GPU pods: 16.5, 20.0 (none after the third kill)")
                .isEqualTo(new Failovers.Summary(3, 12.5, 16.0, 1, 16.5, 20.0, 2));
    }
}
