package io.elasticgpu.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ElasticGPUNamesTest {

    @ParameterizedTest(name = "{0} card {1} uid {2} container {3} → {4}")
    @CsvSource({
        "gpu-a8, 3, 1f9c2e4b-5d6e-47f8-9a0b-1c2d3e4f5a6b, train, gpu-a8-3-1f9c2e4b-train",
        // upper case is lowered, an underscore becomes '-'
        "GPU_Node.1, 0, ABCDEF12-0000, main, gpu-node.1-0-abcdef12-main",
        // a uid shorter than 8 characters is kept whole
        "n1, 7, abc, c, n1-7-abc-c",
    })
    void namesAreDeterministicDnsNames(String node, int card, String uid, String container, String name) {
        assertThat(ElasticGPUNames.of(node, card, uid, container)).isEqualTo(name);
    }
}
