package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MpsLimitsTest {

    private static Share share(int milli, long memoryMib) {
        return new Share(0, "GPU-a", milli, memoryMib);
    }

    private static final long RESERVE = MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB;

    @ParameterizedTest(name = "{0} MiB, {1} milli, {2} processes, reserve {3} -> {4} MiB and {5} % each")
    @CsvSource({
        // one process holds the whole share, less the 1024 MiB kept for its CUDA context
        "20480, 300, 1, 1024, 19456, 30",
        // two processes: 40960 / 2 = 20480 MiB, less 1024; 600 milli = 60 % / 2 = 30 %
        "40960, 600, 2, 1024, 19456, 30",
        // rounded down, so no process gets more than its part: 10001 / 3 = 3333 MiB - 1024, 25 % / 3 = 8 %
        "10001, 250, 3, 1024, 2309, 8",
        // a memory-only share limits no compute: 100 % for every process; 8192 / 4 = 2048 - 1024
        "8192, 0, 4, 1024, 1024, 100",
        // thousandths below a whole percent round down: 305 milli = 30.5 % -> 30 %
        "4096, 305, 1, 1024, 3072, 30",
        // a reserve of 0 gives the plain division: each process's part whole
        "40960, 600, 2, 0, 20480, 30",
        "10001, 250, 3, 0, 3333, 8",
        // another reserve
        "8192, 500, 2, 512, 3584, 25",
    })
    void eachProcessGetsItsPartLessTheContextReserve(
            long memory, int milli, int processes, long reserve, long each, int percent) {
        MpsLimits limits = MpsLimits.of(List.of(share(milli, memory)), processes, reserve);

        assertThat(limits.memoryMib()).containsExactly(each);
        assertThat(limits.threadPercent()).isEqualTo(percent);
        assertThat(limits.processes()).isEqualTo(processes);
    }

    @Test
    void eachCardOfAMultiCardShareGetsItsOwnPart() {
        MpsLimits limits =
                MpsLimits.of(List.of(new Share(2, "GPU-c", 400, 8192), new Share(5, "GPU-f", 400, 8192)), 2, RESERVE);

        assertThat(limits.memoryMib()).containsExactly(3072L, 3072L);
        assertThat(limits.threadPercent()).isEqualTo(20);
    }

    @Test
    void aComputeOnlyShareIsRefusedSayingToAddTheMemoryResource() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 0)), 1, RESERVE))
                .hasMessage("the share on card 0 asks 30 % of compute and no memory; under MPS every share needs"
                        + " memory, or its processes could take all of the card's memory from the shares beside it:"
                        + " add elasticgpu.io/gpu-memory (at least 1025 MiB for 1 process)");
        // whatever the reserve, and on whichever card lacks it
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(305, 4096), new Share(3, "GPU-d", 305, 0)), 2, 0))
                .hasMessage("the share on card 3 asks 30.5 % of compute and no memory; under MPS every share needs"
                        + " memory, or its processes could take all of the card's memory from the shares beside it:"
                        + " add elasticgpu.io/gpu-memory (at least 2 MiB for 2 processes)");
    }

    @Test
    void theSmallestShareThatWorksIsOneMibPerProcessAboveTheReserve() {
        for (int processes : new int[] {1, 2, 7, 48}) {
            long smallest = MpsLimits.smallestMemoryMib(processes, RESERVE);
            assertThat(smallest).isEqualTo(processes * 1025L);
            assertThat(MpsLimits.of(List.of(share(0, smallest)), processes, RESERVE)
                            .memoryMib())
                    .containsExactly(1L);
            assertThatThrownBy(() -> MpsLimits.of(List.of(share(0, smallest - 1)), processes, RESERVE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ask for at least %d MiB".formatted(smallest));
        }
    }

    @Test
    void aShareExactlyAtTheReserveIsRefusedWithTheLeastMemoryAndTheLowerProcessCount() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 1024)), 1, RESERVE))
                .hasMessage("a share of 1024 MiB on card 0 gives each of its 1 process 1024 MiB, no more than the"
                        + " 1024 MiB kept out of a process's MPS memory limit for its CUDA context (which MPS does not"
                        + " count; --mps-context-reserve-mib); ask for at least 1025 MiB");
        // 4096 MiB among 4 processes is 1024 each: refused; 3 processes get 1365 MiB each, 341 after the reserve
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 4096)), 4, RESERVE))
                .hasMessage("a share of 4096 MiB on card 0 gives each of its 4 processes 1024 MiB, no more than the"
                        + " 1024 MiB kept out of a process's MPS memory limit for its CUDA context (which MPS does not"
                        + " count; --mps-context-reserve-mib); ask for at least 4100 MiB or lower"
                        + " elasticgpu.io/gpu-processes to 3");
        assertThat(MpsLimits.of(List.of(share(300, 4096)), 3, RESERVE).memoryMib())
                .containsExactly(341L);
        // with no reserve the same share is held
        assertThat(MpsLimits.of(List.of(share(300, 1024)), 1, 0).memoryMib()).containsExactly(1024L);
    }

    @Test
    void aReserveOutsideItsRangeIsRefusedNamingTheFlag() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 4096)), 1, -1))
                .hasMessage("--mps-context-reserve-mib must be 0..16384, was -1");
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 40960)), 1, MpsLimits.MAX_CONTEXT_RESERVE_MIB + 1))
                .hasMessage("--mps-context-reserve-mib must be 0..16384, was 16385");
    }

    @Test
    void theRecordRefusesLessThanOneMib() {
        assertThatThrownBy(() -> new MpsLimits(List.of(0L), 30, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("MPS limits: memory must be 1 or more MiB per process on each card, was [0]");
        assertThatThrownBy(() -> new MpsLimits(List.of(2048L, -1L), 30, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new MpsLimits(List.of(1L), 30, 1).memoryMib()).containsExactly(1L);
    }

    @Test
    void aComputeShareTooSmallToDivideIsRefusedSayingWhatToChange() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(10, 4096)), 2, 0))
                .hasMessage(
                        "a compute share of 1 % cannot be divided among 2 processes (MPS limits each process to whole"
                                + " percent); ask for at least 2 % or lower elasticgpu.io/gpu-processes");
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(5, 4096)), 1, RESERVE))
                .hasMessage(
                        "a compute share of 0.5 % cannot be divided among 1 processes (MPS limits each process to whole"
                                + " percent); ask for at least 1 % or lower elasticgpu.io/gpu-processes");
        // the compute alone, for a share whose memory has no MiB yet
        assertThat(MpsLimits.threadPercent(300, 4)).isEqualTo(7);
        assertThat(MpsLimits.threadPercent(0, 48)).isEqualTo(100);
        assertThatThrownBy(() -> MpsLimits.threadPercent(10, 2))
                .hasMessageStartingWith("a compute share of 1 % cannot be divided among 2 processes");
    }

    @Test
    void aMemoryShareTooSmallToDivideIsRefused() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 2)), 3, 0))
                .hasMessage("a share of 2 MiB on card 0 cannot be divided among 3 processes (MPS limits each process to"
                        + " whole MiB); ask for at least 3 MiB or lower elasticgpu.io/gpu-processes to 2");
    }

    @Test
    void aWholeCardNeverGoesThroughMps() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(1000, 81559)), 1, RESERVE))
                .hasMessage("MPS limits: a whole card is not shared through MPS (card 0)");
    }

    @Test
    void theProcessCountComesFromTheAnnotationAndIsOneWithout() {
        assertThat(MpsLimits.processes(Map.of())).isEqualTo(1);
        assertThat(MpsLimits.processes(null)).isEqualTo(1);
        assertThat(MpsLimits.processes(Map.of("elasticgpu.io/gpu-processes", " 4 ")))
                .isEqualTo(4);
        assertThat(MpsLimits.processes(Map.of("elasticgpu.io/gpu-processes", "48")))
                .isEqualTo(48);
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @CsvSource({"0", "49", "-1", "two", "1.5", "''"})
    void aProcessCountOutsideOneToFortyEightIsRefused(String value) {
        assertThatThrownBy(() -> MpsLimits.processes(Map.of("elasticgpu.io/gpu-processes", value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "annotation elasticgpu.io/gpu-processes must be a whole number 1..48 (how many CUDA processes"
                                + " share the GPU share), was \"%s\"",
                        value);
    }
}
