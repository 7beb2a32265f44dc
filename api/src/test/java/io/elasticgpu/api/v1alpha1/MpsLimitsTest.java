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

    @ParameterizedTest(name = "{0} MiB, {1} milli, {2} processes -> {3} MiB and {4} % each")
    @CsvSource({
        // one process holds the whole share
        "20480, 300, 1, 20480, 30",
        // two processes: 40960 / 2 = 20480 MiB, 600 milli = 60 % / 2 = 30 %
        "40960, 600, 2, 20480, 30",
        // rounded down, so no process gets more than its part: 10001 / 3 = 3333 MiB, 25 % / 3 = 8 %
        "10001, 250, 3, 3333, 8",
        // a memory-only share limits no compute: 100 % for every process
        "8192, 0, 4, 2048, 100",
        // a compute-only share limits no memory: 0 stays 0 (no limit)
        "0, 500, 1, 0, 50",
        // thousandths below a whole percent round down: 305 milli = 30.5 % -> 30 %
        "4096, 305, 1, 4096, 30",
    })
    void aShareIsDividedEvenlyAmongItsProcesses(long memory, int milli, int processes, long each, int percent) {
        MpsLimits limits = MpsLimits.of(List.of(share(milli, memory)), processes);

        assertThat(limits.memoryMib()).containsExactly(each);
        assertThat(limits.threadPercent()).isEqualTo(percent);
        assertThat(limits.processes()).isEqualTo(processes);
    }

    @Test
    void eachCardOfAMultiCardShareGetsItsOwnPart() {
        MpsLimits limits = MpsLimits.of(List.of(new Share(2, "GPU-c", 400, 8192), new Share(5, "GPU-f", 400, 8192)), 2);

        assertThat(limits.memoryMib()).containsExactly(4096L, 4096L);
        assertThat(limits.threadPercent()).isEqualTo(20);
    }

    @Test
    void aComputeShareTooSmallToDivideIsRefusedSayingWhatToChange() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(10, 4096)), 2))
                .hasMessage(
                        "a compute share of 1 % cannot be divided among 2 processes (MPS limits each process to whole"
                                + " percent); ask for at least 2 % or lower elasticgpu.io/gpu-processes");
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(5, 4096)), 1))
                .hasMessage(
                        "a compute share of 0.5 % cannot be divided among 1 processes (MPS limits each process to whole"
                                + " percent); ask for at least 1 % or lower elasticgpu.io/gpu-processes");
    }

    @Test
    void aMemoryShareTooSmallToDivideIsRefused() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(300, 2)), 3))
                .hasMessage("a share of 2 MiB on card 0 cannot be divided among 3 processes (MPS limits each process to"
                        + " whole MiB); ask for more memory or lower elasticgpu.io/gpu-processes");
    }

    @Test
    void aWholeCardNeverGoesThroughMps() {
        assertThatThrownBy(() -> MpsLimits.of(List.of(share(1000, 81559)), 1))
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
