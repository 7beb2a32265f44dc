package io.elasticgpu.controller.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Allocation.Share;
import io.fabric8.kubernetes.api.model.Pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The table fits a terminal of 80 columns whatever the names in the cluster. */
class TableRendererTest {

    @ParameterizedTest(name = "node={0} namespace={1}")
    @CsvSource(nullValues = "-", value = {"-, -", "-, team-b", "gpu-t2, -", "gpu-a8, ml"})
    void everyTableLineFitsEightyColumns(String node, String namespace) {
        String table = ViewFormat.TABLE.render(
                ClusterView.of(ClusterFixture.nodes(), crowdedPods(), new Scope(node, namespace)));
        assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(TableRenderer.WIDTH));
    }

    @Test
    void aLongPodListIsCutWithAnEllipsisAtTheEightiethColumn() {
        String table = ViewFormat.TABLE.render(ClusterView.of(ClusterFixture.nodes(), crowdedPods()));
        String card3 = table.lines().filter(l -> l.startsWith("  3 ")).findFirst().orElseThrow();
        assertThat(card3).hasSize(80).endsWith("…").contains("slice-00, slice-01");
    }

    @Test
    void cutLeavesShortTextAloneAndEndsLongTextWithAnEllipsis() {
        assertThat(TableRenderer.cut("train-big", 9)).isEqualTo("train-big");
        assertThat(TableRenderer.cut("train-big", 8)).isEqualTo("train-b…");
    }

    /** The fixture plus ten slices of card 3 and a very long problem, to push every column. */
    private static List<Pod> crowdedPods() {
        List<Pod> pods = new ArrayList<>(ClusterFixture.pods());
        for (int i = 0; i < 10; i++) {
            pods.add(ClusterFixture.holder("ml", "slice-%02d".formatted(i), "gpu-a8", "allocated", Map.of("main",
                    List.of(new Share(3, ClusterFixture.uuid("gpu-a8", 3), 100, 1024)))));
        }
        pods.add(ClusterFixture.withAllocationJson("team-b", "x".repeat(120), "gpu-a8", "[1, 2"));
        return pods;
    }
}
