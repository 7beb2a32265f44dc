package io.elasticgpu.controller.view;

import static io.elasticgpu.controller.view.ClusterFixture.A100_MIB;
import static io.elasticgpu.controller.view.ClusterFixture.T4_MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.Node;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the view counts, card by card and in total, and what it refuses to count. */
class ClusterViewTest {

    /**
     * bf16 free on the healthy cards: gpu-a8's cards 0-3, 6 and 7 are held whole; card 4 has 20 % free, 312 x 0.2 =
     * 62.40, card 5 40 %, 124.80; 187.20 in all. gpu-t2's healthy T4 has no bf16; its unhealthy card is not counted.
     */
    private static final FreeTflops ALL_FREE =
            new FreeTflops("bf16", new BigDecimal("187.20"), "1 card: no bf16 figure");

    private static final FreeTflops T2_FREE = new FreeTflops("bf16", null, "1 card: no bf16 figure");

    private final ClusterView all = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods());

    private static CardView card(ClusterView view, String node, int index) {
        return view.nodes().stream()
                .filter(n -> n.name().equals(node))
                .findFirst()
                .orElseThrow()
                .cards()
                .get(index);
    }

    @ParameterizedTest(name = "{0} card {1}: {2}/{3} MiB, {4}% by {5} holders")
    @CsvSource({
        // whole card of train-big: 81920 MiB, 1000 milli = 100 %
        "gpu-a8, 0, 81920, 81920, 100, 1",
        // infer-a 20480 + notebook (assumed, not yet bound) 8192 = 28672 MiB; 50 % + 30 % = 80 %
        "gpu-a8, 4, 28672, 81920, 80, 2",
        // pipeline's two containers: prep 4096 + model 16384 = 20480 MiB; 20 % + 40 % = 60 %
        "gpu-a8, 5, 20480, 81920, 60, 2",
        // done (Succeeded) holds nothing now; leaving (being deleted, still Running) holds card 7 until it stops
        "gpu-a8, 7, 81920, 81920, 100, 1",
        // aliyun-share 8192 MiB at 0 % + batch worker 2048 MiB at 30 % = 10240 MiB, 30 %
        "gpu-t2, 0, 10240, 15360, 30, 2",
        // ghost names card 9 of a 2-card node: a problem, counted nowhere
        "gpu-t2, 1, 0, 15360, 0, 0",
    })
    void aCardsGrantIsTheSumOfItsHolders(String node, int index, long granted, long total, int percent, int holders) {
        CardView card = card(all, node, index);
        assertThat(card.memoryGrantedMib()).isEqualTo(granted);
        assertThat(card.memoryTotalMib()).isEqualTo(total);
        assertThat(card.computeGrantedPercent()).isEqualTo(percent);
        assertThat(card.computeTotalPercent()).isEqualTo(100);
        assertThat(card.holders()).hasSize(holders);
    }

    @Test
    void aPodBeingDeletedIsShownHoldingItsCardAsTerminating() {
        assertThat(card(all, "gpu-a8", 7).holders()).singleElement().satisfies(h -> {
            assertThat(h.podName()).isEqualTo("ml/leaving");
            assertThat(h.phase()).isEqualTo("terminating");
        });
    }

    @Test
    void theSummaryAddsUpEveryCardOfEveryGpuNode() {
        // memory: 4 × 81920 (train-big) + 28672 + 20480 + 81920 (pipeline's whole card 6) + 81920 (leaving, still
        // terminating, card 7) + 10240 = 550912 MiB
        // capacity: 8 × 81920 + 2 × 15360 = 686080 MiB; compute: 400 + 80 + 60 + 100 + 100 + 30 = 770 of 10 × 100
        assertThat(all.summary())
                .isEqualTo(new Summary(2, 10, 1, 550912, 8 * A100_MIB + 2 * T4_MIB, 770, 1000, 7, 1, ALL_FREE));
    }

    @Test
    void aNamespaceScopeHidesOtherHoldersButKeepsClusterTotals() {
        ClusterView teamB = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope(null, "team-b"));
        assertThat(teamB.summary()).isEqualTo(all.summary());
        assertThat(card(teamB, "gpu-a8", 4).memoryGrantedMib()).isEqualTo(28672);
        assertThat(card(teamB, "gpu-a8", 4).holders())
                .extracting(Holder::podName)
                .containsExactly("team-b/notebook-7f9c2");
        assertThat(teamB.pending()).isEmpty();
        assertThat(teamB.problems()).extracting(Problem::object).containsExactly("node gpu-new", "pod team-b/ghost");
    }

    @Test
    void aNodeScopeTotalsThatNodeOnly() {
        ClusterView t2 = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope("gpu-t2", null));
        // 10240 of 2 × 15360 MiB; pods holding: aliyun-share, batch worker; pending stays cluster-wide
        assertThat(t2.summary()).isEqualTo(new Summary(1, 2, 1, 10240, 30720, 30, 200, 2, 1, T2_FREE));
        assertThat(t2.nodes()).extracting(NodeView::name).containsExactly("gpu-t2");
    }

    @Test
    void aNodeScopeNamingNoGpuNodeSaysWhichNodesThereAre() {
        assertThatThrownBy(
                        () -> ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope("cpu-1", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("node cpu-1 has no readable GPU inventory; GPU nodes: gpu-a8, gpu-t2");
    }

    @Test
    void badAnnotationsBecomeProblemsWithTheirReason() {
        assertThat(all.problems())
                .containsExactly(
                        new Problem(
                                "node gpu-new",
                                "labelled elasticgpu.io/gpu.present=true but has no elasticgpu.io/inventory"
                                        + " annotation; is the node agent running there?"),
                        new Problem(
                                "pod ml/broken",
                                "allocation: not valid JSON: Unexpected end-of-input: expected close marker"
                                        + " for Object"),
                        new Problem(
                                "pod team-b/ghost", "allocation names card 9 on node gpu-t2, which has cards 0..1"));
    }

    @Test
    void aUuidThatIsNotTheCardsAnOtherNodeAndAnOvercommittedCardAreProblems() {
        List<io.fabric8.kubernetes.api.model.Pod> pods = List.of(
                ClusterFixture.holder(
                        "ml",
                        "stale",
                        "gpu-t2",
                        "allocated",
                        Map.of("main", List.of(new Share(0, "GPU-old", 1000, T4_MIB)))),
                ClusterFixture.holder(
                        "ml",
                        "moved",
                        "gpu-a8",
                        "allocated",
                        Map.of("main", List.of(ClusterFixture.whole("gpu-a8", 0)))),
                ClusterFixture.holder(
                        "ml",
                        "first",
                        "gpu-a8",
                        "allocated",
                        Map.of("main", List.of(ClusterFixture.whole("gpu-a8", 1)))),
                ClusterFixture.holder(
                        "ml",
                        "second",
                        "gpu-a8",
                        "allocated",
                        Map.of("main", List.of(new Share(1, ClusterFixture.uuid("gpu-a8", 1), 500, 1024)))));
        pods.get(1).getSpec().setNodeName("gpu-t2");
        ClusterView view = ClusterView.of(ClusterFixture.nodes(), pods);
        assertThat(view.problems())
                .extracting(p -> p.object() + ": " + p.reason())
                .containsExactly(
                        "node gpu-a8: card 1 is over-committed: 82944/81920 MiB, 150/100% compute",
                        "node gpu-new: labelled elasticgpu.io/gpu.present=true but has no elasticgpu.io/inventory"
                                + " annotation; is the node agent running there?",
                        "pod ml/moved: allocation names node gpu-a8 but the pod is bound to gpu-t2",
                        "pod ml/stale: allocation names card 0 as GPU-old, but card 0 on node gpu-t2 is "
                                + "GPU-gpu-t2-0000");
    }

    @Test
    void nvlinkIslandsAreTheLinkedGroupsOfCards() {
        assertThat(all.nodes().getFirst().nvlinkIslands()).containsExactly(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7));
        assertThat(all.nodes().getLast().nvlinkIslands()).isEmpty();
    }

    @Test
    void eachCardShowsTheTflopsItsComputeNotHeldGivesAndEachNodeTheSumOfItsHealthyCards() {
        assertThat(card(all, "gpu-a8", 0).freeTflops()).isEqualTo(new FreeTflops("bf16", new BigDecimal("0.00"), null));
        assertThat(card(all, "gpu-a8", 4).freeTflops().free()).isEqualByComparingTo("62.40");
        assertThat(card(all, "gpu-a8", 5).freeTflops().free()).isEqualByComparingTo("124.80");
        assertThat(node(all, "gpu-a8").freeTflops()).isEqualTo(new FreeTflops("bf16", new BigDecimal("187.20"), null));
        // a T4 has no bf16: no figure and why, rather than 0
        assertThat(card(all, "gpu-t2", 0).freeTflops()).isEqualTo(new FreeTflops("bf16", null, "no bf16 figure"));
    }

    @Test
    void inAnotherPrecisionTheFiguresAreThatPrecisionsPeaksAndAnUnhealthyCardIsNotCounted() {
        ClusterView fp32 = ClusterView.of(
                ClusterFixture.nodes(),
                ClusterFixture.pods(),
                List.of(),
                Scope.ALL,
                ModelTable.shipped(),
                Precision.FP32);
        // T4 fp32 8.1: card 0 has 70 % free, 5.67; card 1 (unhealthy) has all 8.10 free but is offered nothing
        assertThat(card(fp32, "gpu-t2", 0).freeTflops().free()).isEqualByComparingTo("5.67");
        assertThat(card(fp32, "gpu-t2", 1).freeTflops().free()).isEqualByComparingTo("8.10");
        assertThat(node(fp32, "gpu-t2").freeTflops()).isEqualTo(new FreeTflops("fp32", new BigDecimal("5.67"), null));
        // A100 fp32 19.5: 3.90 + 7.80 on cards 4 and 5
        assertThat(fp32.summary().freeTflops()).isEqualTo(new FreeTflops("fp32", new BigDecimal("17.37"), null));
    }

    @Test
    void aCardOfAModelTheTableLacksSaysUnknownModelAndIsLeftOutOfItsNodesSum() {
        List<Node> nodes = new ArrayList<>(ClusterFixture.nodes());
        nodes.add(ClusterFixture.gpuNode(
                "gpu-g2",
                new io.elasticgpu.api.v1alpha1.NodeInventory(
                        List.of(
                                new io.elasticgpu.api.v1alpha1.NodeInventory.Card(0, "GPU-g2-0", "G2", 16384, true, 0),
                                new io.elasticgpu.api.v1alpha1.NodeInventory.Card(1, "GPU-g2-1", "G2", 16384, true, 0)),
                        List.of()),
                "550.54.15"));
        ClusterView view = ClusterView.of(nodes, ClusterFixture.pods());
        assertThat(card(view, "gpu-g2", 0).freeTflops()).isEqualTo(new FreeTflops("bf16", null, "unknown model"));
        assertThat(node(view, "gpu-g2").freeTflops()).isEqualTo(new FreeTflops("bf16", null, "2 cards: unknown model"));
        assertThat(view.summary().freeTflops())
                .isEqualTo(new FreeTflops(
                        "bf16", new BigDecimal("187.20"), "1 card: no bf16 figure, 2 cards: unknown model"));
        String table = ViewFormat.TABLE.render(view);
        assertThat(table)
                .contains("  free: TFLOPS bf16 unknown: 2 cards: unknown model")
                .contains("  ? unknown model: the model table has no TFLOPS for it");
    }

    private static NodeView node(ClusterView view, String name) {
        return view.nodes().stream()
                .filter(n -> n.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}
