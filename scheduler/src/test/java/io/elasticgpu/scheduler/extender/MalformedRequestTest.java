package io.elasticgpu.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.http.BadRequest;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A filter with neither NodeNames nor Nodes threw a NullPointerException (no answer). */
class MalformedRequestTest {

    private final Pod pod = new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();

    @Test
    void aRequestWithoutCandidateNodesIsABadRequestThatSaysWhatIsMissing() {
        assertThatThrownBy(() -> Verbs.requireWellFormed(new Wire.ExtenderArgs(pod, null, null)))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("\"NodeNames\" or \"Nodes\"");
    }

    @Test
    void aRequestWithoutAPodOrWithUnnamedNodesIsABadRequest() {
        assertThatThrownBy(() -> Verbs.requireWellFormed(new Wire.ExtenderArgs(null, null, List.of("a"))))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("\"Pod\"");
        assertThatThrownBy(() -> Verbs.requireWellFormed(new Wire.ExtenderArgs(pod, null, Arrays.asList("a", null))))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> Verbs.requireWellFormed(new Wire.ExtenderArgs(
                        pod, new NodeListBuilder().addNewItem().endItem().build(), null)))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("name");
    }
}
