package io.elasticgpu.core.snapshot;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterStateTest {

    private final ClusterState cluster =
            new ClusterState(List.of(node("a", 8000, 8000, 2, "T4"), node("b", 8000, 8000, 4, "T4")));

    @Test
    void countsCapacityAndWhatPlacementsHold() {
        assertThat(cluster.capacityMilli()).isEqualTo(6000);
        Grant p = new Grant(
                "b",
                Ask.wholeCards(1000, 1000, 2),
                List.of(new CardShare(0, 1000, 16_384), new CardShare(3, 1000, 16_384)));
        cluster.assume(p);
        assertThat(cluster.usedMilli()).isEqualTo(2000);
        assertThat(cluster.node("b").idleHealthyCards()).isEqualTo(2);
        cluster.forget(p);
        assertThat(cluster.usedMilli()).isZero();
        assertThat(cluster.node("b").idleHealthyCards()).isEqualTo(4);
    }

    @Test
    void aRefusedPlacementChangesNothing() {
        Grant tooBig = new Grant("a", Ask.cpuOnly(9000, 0), List.of());
        assertThatThrownBy(() -> cluster.assume(tooBig)).isInstanceOf(IllegalStateException.class);
        assertThat(cluster.node("a").freeCpu()).isEqualTo(8000);
        assertThat(cluster.usedMilli()).isZero();
    }

    @Test
    void unknownNodesAreNamed() {
        assertThatThrownBy(() -> cluster.node("zz")).hasMessage("cluster has no node named zz");
    }

    @Test
    void duplicateNodeNamesAreRefused() {
        assertThatThrownBy(() -> new ClusterState(List.of(node("a", 1, 1, 1, "T4"), node("a", 1, 1, 1, "T4"))))
                .hasMessage("cluster: node name a appears twice");
    }
}
