package io.elasticgpu.simulator.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QosPriorityTest {

    @TempDir
    Path dir;

    @Test
    void theQosColumnGivesEachPodItsPriorityAndClonesTheirOriginals() throws IOException {
        Path list = Files.writeString(dir.resolve("pods.csv"), """
                name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase
                p0,1000,1024,1,500,,LS,Running
                p1,1000,1024,1,500,,BE,Running
                p2,1000,1024,1,500,,Burstable,Running
                p3,1000,1024,1,500,,Guaranteed,Running
                p4,1000,1024,1,500,,,Running
                """);
        QosPriority qos = QosPriority.read(list);
        assertThat(qos.priority("p0")).isEqualTo(3);
        assertThat(qos.priority("p1")).isEqualTo(1);
        assertThat(qos.priority("p2")).isEqualTo(2);
        assertThat(qos.priority("p3")).isEqualTo(3);
        assertThat(qos.priority("p4")).isZero();
        assertThat(qos.priority("p1-tuned-7")).isEqualTo(1);
        assertThat(qos.priority("unknown")).isZero();
        assertThat(qos.counts()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L, 3, 2L));
    }

    @Test
    void aListWithoutAQosColumnIsRefusedByName() throws IOException {
        Path list = Files.writeString(dir.resolve("multigpu.csv"), "name,cpu_milli,num_gpu\np0,1000,2\n");
        assertThatThrownBy(() -> QosPriority.read(list))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no name and qos columns");
    }
}
