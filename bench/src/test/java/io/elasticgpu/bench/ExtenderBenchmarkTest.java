package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** How the scheduling cycles of {@code bench/run extender} read a filter's answer, as kube-scheduler does. */
class ExtenderBenchmarkTest {

    @Test
    void theNodesAFilterPassesAreItsNodeNamesWhateverComesAroundThem() throws IOException {
        assertThat(ExtenderBenchmark.passedNodes("{\"FailedNodes\":{\"gpu-2\":\"full\"},\"NodeNames\":[\"gpu-0\","
                        + "\"gpu-1\"],\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}"))
                .containsExactly("gpu-0", "gpu-1");
        assertThat(ExtenderBenchmark.passedNodes("{\"NodeNames\":[\"gpu-7\"],\"Error\":\"\"}"))
                .containsExactly("gpu-7");
    }

    @Test
    void anAnswerWithoutNodesPassesNoneAndOneThatIsNotAnObjectIsAnError() throws IOException {
        assertThat(ExtenderBenchmark.passedNodes("{\"NodeNames\":[],\"Error\":\"\"}"))
                .isEmpty();
        assertThat(ExtenderBenchmark.passedNodes("{\"Error\":\"no node fits\"}"))
                .isEmpty();
        assertThatThrownBy(() -> ExtenderBenchmark.passedNodes("[\"gpu-0\"]"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not a JSON object");
    }
}
