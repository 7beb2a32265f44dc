package io.elasticgpu.controller.view;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The table fits a terminal of 80 columns whatever the names in the cluster. */
class TableRendererTest {

    @ParameterizedTest(name = "node={0} namespace={1}")
    @CsvSource(
            nullValues = "-",
            value = {"-, -", "-, team-b", "gpu-t2, -", "gpu-a8, ml"})
    void everyTableLineFitsEightyColumns(String node, String namespace) {
        String table = ViewFormat.TABLE.render(
                ClusterView.of(ClusterFixture.nodes(), crowdedPods(), new Scope(node, namespace)));
        assertThat(table.lines())
                .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(TableRenderer.WIDTH));
    }

    @Test
    void aLongPodListIsCutWithAnEllipsisAtTheEightiethColumn() {
        String table = ViewFormat.TABLE.render(ClusterView.of(ClusterFixture.nodes(), crowdedPods()));
        String card3 =
                table.lines().filter(l -> l.startsWith("  3 ")).findFirst().orElseThrow();
        assertThat(card3).hasSize(80).endsWith("…").contains("slice-00, slice-01");
    }

    @Test
    void aMeasuredNodesCardsShowTheMemoryUsedBesideTheGrantAndMarkACardWithAContainerOverItsGrant() {
        String table = ViewFormat.TABLE.render(ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods()));
        assertThat(table).contains("""
                gpu-t2  2 × Tesla T4  driver 550.54.15
                  used: measured 2026-11-27T10:00:00Z
                  free: TFLOPS bf16 unknown: 1 card: no bf16 figure
                  CARD  MODEL                  GRANTED GiB   USED  CORE  FREE BF16  PODS
                  0     Tesla T4                 10.0/15.0   10.6!  30%          -  aliyun-shar…
                  1*    Tesla T4                  0.0/15.0    0.0    0%          -
                  * unhealthy: the scheduler places nothing new on it
                    card 1: Xid 79
                  - no bf16 figure in the model table for its model
                  ! a container uses more memory than it was granted; -o wide shows which
                """);
    }

    @Test
    void theWideTableShowsEachHoldersGrantBesideWhatItUsesAndMarksOneOverItsGrant() {
        String wide = ViewFormat.WIDE.render(ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods()));
        assertThat(wide).contains("""
                  0     Tesla T4                 10.0/15.0   10.6!  30%          -  GPU-gpu-t2-0000
                        ml/aliyun-share                                          app       8,192 granted /   9,216 \
                used MiB  OVER  core   0% / SM    -  allocated
                        ml/batch-inference-worker-with-a-rather-long-name-5d8f7  worker    2,048 granted /   1,536 \
                used MiB        core  30% / SM  27%  allocated
                """);
    }

    @Test
    void aHolderThatAskedInTflopsShowsTheTflopsAskedAndGivenBesideItsShare() {
        // 100 TFLOPS of bf16 on an A100 (312): 33 %, which gives 312 x 0.33 = 102.96
        Share share = new Share(5, ClusterFixture.uuid("gpu-a8", 5), 330, 8192, 100, "bf16", 102.96);
        List<Pod> pods = new ArrayList<>(ClusterFixture.pods());
        pods.add(ClusterFixture.holder("ml", "tflops", "gpu-a8", "allocated", Map.of("main", List.of(share))));
        String wide = ViewFormat.WIDE.render(ClusterView.of(ClusterFixture.nodes(), pods, new Scope("gpu-a8", null)));
        assertThat(wide)
                .contains("ml/tflops")
                .contains("core  33% / SM    -  allocated  TFLOPS 100 bf16 asked / 102.96 given");
    }

    @Test
    void aNodeWithoutUsageSaysWhatItsPodsUseIsUnknownRatherThanZero() {
        String wide = ViewFormat.WIDE.render(
                ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope("gpu-a8", null)));
        assertThat(wide).contains("""
                gpu-a8  8 × NVIDIA A100-SXM4-80GB  driver 570.86.15  NVLink 0-3 4-7
                  used: unknown, no readable elasticgpu.io/usage annotation
                  free: 187.20 TFLOPS bf16 on healthy cards
                  CARD  MODEL                  GRANTED GiB  CORE  FREE BF16  UUID
                """, """
                  4     NVIDIA A100-SXM4-80GB    28.0/80.0   80%      62.40  GPU-gpu-a8-0004
                        ml/infer-a             server    20,480 granted /       - used MiB        core  50% / SM    - \
                 allocated
                        team-b/notebook-7f9c2  jupyter    8,192 granted /       - used MiB        core  30% / SM    - \
                 assumed
                """);
    }

    @Test
    void aNodeWithAMalformedUsageAnnotationShowsItsUseAsUnknownAndTheProblem() {
        String table = ViewFormat.TABLE.render(ClusterView.of(
                ClusterFixture.nodesWithUsage("gpu-t2", "not json"), ClusterFixture.pods(), new Scope("gpu-t2", null)));
        assertThat(table).contains("""
                gpu-t2  2 × Tesla T4  driver 550.54.15
                  used: unknown, no readable elasticgpu.io/usage annotation
                  free: TFLOPS bf16 unknown: 1 card: no bf16 figure
                  CARD  MODEL                  GRANTED GiB  CORE  FREE BF16  PODS
                  0     Tesla T4                 10.0/15.0   30%          -  aliyun-share, batc…
                """, """
                problems (2):
                  node gpu-t2: annotation elasticgpu.io/usage: not valid JSON: Unrecognized
                      token 'not': was expecting (JSON String, Number, Array, Object or token
                      'null', 'true' or 'false')
                """);
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
            pods.add(ClusterFixture.holder(
                    "ml",
                    "slice-%02d".formatted(i),
                    "gpu-a8",
                    "allocated",
                    Map.of("main", List.of(new Share(3, ClusterFixture.uuid("gpu-a8", 3), 100, 1024)))));
        }
        pods.add(ClusterFixture.withAllocationJson("team-b", "x".repeat(120), "gpu-a8", "[1, 2"));
        return pods;
    }
}
