package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ResourceClaimTemplate an ElasticGPUClaim of a DRA class becomes, and the asks DRA cannot carry. */
class ClaimTemplateTest {

    @Test
    void aShareBecomesOneRequestOfOurDeviceClass() {
        ElasticGPUClaim claim = ElasticGPUClaim.of(
                "team",
                "notebook",
                "shared",
                Map.of(ResourceNames.GPU_MEMORY, new Quantity("8192"), ResourceNames.GPU_CORE, new Quantity("30")));

        var template = ClaimAsks.template(claim);

        assertThat(template.getMetadata().getName()).isEqualTo(DraNames.claimTemplate("notebook"));
        assertThat(template.getSpec().getSpec().getDevices().getRequests())
                .singleElement()
                .satisfies(r -> assertThat(r.getExactly().getDeviceClassName()).isEqualTo(DraNames.DRIVER));
    }

    @Test
    void aClaimAskingTflopsIsNotMadeIntoATemplateAndTheMessageSaysWhatToDo() {
        ElasticGPUClaim claim = ElasticGPUClaim.of(
                "team",
                "notebook",
                "shared",
                Map.of(ResourceNames.GPU_MEMORY, new Quantity("8192"), ResourceNames.GPU_TFLOPS, new Quantity("100")));

        assertThatThrownBy(() -> ClaimAsks.template(claim))
                .isInstanceOf(InvalidAskException.class)
                .hasMessage("claim notebook asks 100 TFLOPS: through DRA a share's compute is a fixed cores capacity,"
                        + " which kube-scheduler's allocator cannot convert per card model; give the claim a class"
                        + " for device-plugin nodes, or ask elasticgpu.io/gpu-core instead");
    }
}
