package io.elasticgpu.localcluster.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

/**
 * A node kube-scheduler may use: a node kwok has marked Ready still carries the API server's
 * {@code not-ready} taint until the node lifecycle controller removes it, and kube-scheduler leaves it out.
 */
class SchedulableNodesTest {

    private static NodeBuilder node(String ready) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("n")
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready)
                .endCondition()
                .endStatus();
    }

    @Test
    void aReadyUntaintedNodeIsSchedulable() {
        assertThat(FakeGpuNodes.schedulable(node("True").build())).isTrue();
    }

    @Test
    void aReadyNodeStillTaintedNotReadyIsNot() {
        Node tainted = node("True")
                .editSpec()
                .addNewTaint()
                .withKey("node.kubernetes.io/not-ready")
                .withEffect("NoSchedule")
                .endTaint()
                .endSpec()
                .build();
        assertThat(FakeGpuNodes.schedulable(tainted)).isFalse();
    }

    @Test
    void aNodeNotReadyIsNot() {
        assertThat(FakeGpuNodes.schedulable(node("False").build())).isFalse();
        assertThat(FakeGpuNodes.schedulable(new NodeBuilder()
                        .withNewMetadata()
                        .withName("n")
                        .endMetadata()
                        .build()))
                .isFalse();
    }
}
