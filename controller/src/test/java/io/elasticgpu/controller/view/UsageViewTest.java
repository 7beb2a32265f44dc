package io.elasticgpu.controller.view;

import static io.elasticgpu.controller.view.ClusterFixture.BATCH_WORKER;
import static io.elasticgpu.controller.view.ClusterFixture.MEASURED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each container uses, as the node agent measured it ({@code elasticgpu.io/usage}), beside what it was granted.
 * In the fixture gpu-t2 publishes its use and gpu-a8 does not.
 */
class UsageViewTest {

    private final ClusterView all = ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods());

    private static CardView card(ClusterView view, String node, int index) {
        return view.nodes().stream()
                .filter(n -> n.name().equals(node))
                .findFirst()
                .orElseThrow()
                .cards()
                .get(index);
    }

    private static Holder holder(CardView card, String pod) {
        return card.holders().stream()
                .filter(h -> h.pod().equals(pod))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aHolderUsesWhatTheNodesUsageSaysOfItsContainerOnItsCard() {
        CardView card = card(all, "gpu-t2", 0);
        assertThat(holder(card, BATCH_WORKER))
                .isEqualTo(new Holder("ml", BATCH_WORKER, "worker", 2048, 30, "allocated", 1536, 27));
        assertThat(holder(card, BATCH_WORKER).usesMoreThanGranted()).isFalse();
    }

    @Test
    void aHolderUsingMoreMemoryThanItWasGrantedSaysSoAndItsUnknownSmStaysUnknown() {
        Holder aliyun = holder(card(all, "gpu-t2", 0), "aliyun-share");
        assertThat(aliyun).isEqualTo(new Holder("ml", "aliyun-share", "app", 8192, 0, "allocated", 9216, -1));
        assertThat(aliyun.usesMoreThanGranted()).isTrue();
    }

    @Test
    void aCardUsesWhatEveryContainerAndEveryUnattributedProcessHoldsThere() {
        // aliyun-share 9216 + batch worker 1536 + a process of no pod 66
        assertThat(card(all, "gpu-t2", 0).memoryUsedMib()).isEqualTo(9216 + 1536 + 66);
        assertThat(card(all, "gpu-t2", 0).usageMeasured()).isEqualTo(MEASURED);
        // measured, and nothing runs there
        assertThat(card(all, "gpu-t2", 1).memoryUsedMib()).isZero();
        assertThat(card(all, "gpu-t2", 1).usageMeasured()).isEqualTo(MEASURED);
    }

    @Test
    void aCardCountsTheUseOfHoldersANamespaceScopeHides() {
        ClusterView teamB =
                ClusterView.of(ClusterFixture.nodes(), ClusterFixture.pods(), new Scope("gpu-t2", "team-b"));
        assertThat(card(teamB, "gpu-t2", 0).holders()).isEmpty();
        assertThat(card(teamB, "gpu-t2", 0).memoryUsedMib()).isEqualTo(10818);
    }

    @Test
    void withoutAUsageAnnotationWhatIsUsedIsUnknownNotZero() {
        CardView card = card(all, "gpu-a8", 4);
        assertThat(card.memoryUsedMib()).isEqualTo(-1);
        assertThat(card.usageMeasured()).isNull();
        assertThat(card.holders())
                .extracting(Holder::usedMemoryMib, Holder::smPercent)
                .containsOnly(tuple(-1L, -1));
        assertThat(card.holders()).noneMatch(Holder::usesMoreThanGranted);
    }

    @Test
    void aHolderWhoseContainerRunsNothingOnAMeasuredCardUsesNothing() {
        String onlyTheWorker = new NodeUsage(
                        MEASURED, List.of(new ContainerUsage("ml", BATCH_WORKER, "worker", 0, 1536, 27, 2)), List.of())
                .toJson();
        ClusterView view =
                ClusterView.of(ClusterFixture.nodesWithUsage("gpu-t2", onlyTheWorker), ClusterFixture.pods());
        assertThat(holder(card(view, "gpu-t2", 0), "aliyun-share"))
                .extracting(Holder::usedMemoryMib, Holder::smPercent)
                .containsExactly(0L, 0);
        assertThat(card(view, "gpu-t2", 0).memoryUsedMib()).isEqualTo(1536);
    }

    @Test
    void aMalformedUsageAnnotationIsAProblemNamingTheNodeAndTheParseError() {
        ClusterView view = ClusterView.of(
                ClusterFixture.nodesWithUsage("gpu-t2", "{\"measured\": \"2026-11-27T10:00:00Z\", \"containers\": ["),
                ClusterFixture.pods());
        assertThat(view.problems())
                .contains(new Problem(
                        "node gpu-t2",
                        "annotation elasticgpu.io/usage: not valid JSON: Unexpected end-of-input: expected "
                                + "close marker for Array"));
        assertThat(card(view, "gpu-t2", 0).memoryUsedMib()).isEqualTo(-1);
        assertThat(card(view, "gpu-t2", 0).usageMeasured()).isNull();
        assertThat(card(view, "gpu-t2", 0).memoryGrantedMib()).isEqualTo(10240);
    }
}
