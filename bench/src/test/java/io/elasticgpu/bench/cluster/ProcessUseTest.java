package io.elasticgpu.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CPU a replay charges to its pods: a background process's idle rate times the stream's length comes off its CPU,
 * the processes without one count in full, and the comparison with the baseline leaves the harness out.
 */
class ProcessUseTest {

    @Test
    void idleWorkOverTheStreamComesOffOnlyTheProcessesWithAnIdleRate() {
        Map<String, Double> cpu = new LinkedHashMap<>();
        cpu.put("kube-apiserver", 300.0);
        cpu.put("kwok", 10.0);
        cpu.put("extender", 50.0);
        Map<String, Double> idle = Map.of("kube-apiserver", 0.5, "kwok", 0.2);

        Map<String, Double> above = ProcessUse.aboveIdle(cpu, idle, 100);

        assertThat(above)
                .containsExactly(
                        Map.entry("kube-apiserver", 250.0), // 300 s less 0.5 s/s over 100 s
                        Map.entry("kwok", 0.0), // its idle rate would have used 20 s: never below 0
                        Map.entry("extender", 50.0)); // no idle rate: in full
    }

    @Test
    void ratesAreCpuSecondsPerSecond() {
        assertThat(ProcessUse.perSecond(Map.of("etcd", 3.0), 15)).containsExactly(Map.entry("etcd", 0.2));
        assertThatThrownBy(() -> ProcessUse.perSecond(Map.of("etcd", 3.0), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive time");
    }

    @Test
    void theComparisonWithTheBaselineLeavesTheHarnessOut() {
        Map<String, Double> ours = Map.of("kube-apiserver", 40.0, "extender", 20.0, "harness", 30.0);
        Map<String, Double> baseline = Map.of("kube-apiserver", 40.0, "harness", 10.0);

        assertThat(ReplayResult.againstBaseline(ours, baseline)).isCloseTo(1.5, within(1e-9));
        assertThat(ReplayResult.againstBaseline(ours, Map.of())).isNaN();
        assertThat(ReplayResult.cpuRatios(ours, baseline, Map.of("extender", 20.0), Map.of("kwok", 5.0)))
                .isEqualTo("1.50x (above idle 4.00x; the harness left out)");
        assertThat(ReplayResult.cpuRatios(ours, Map.of(), ours, Map.of())).isEqualTo("not measured");
    }
}
