package io.elasticgpu.core.snapshot;

import static io.elasticgpu.core.Fixtures.node;
import static io.elasticgpu.core.Fixtures.withUsed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Health;
import io.elasticgpu.core.model.Node;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeStateTest {

    private final Node n1 = node("n1", 16_000, 65_536, 4, "T4");

    @Test
    void placingAndRemovingRestoresTheState() {
        NodeState empty = NodeState.empty(n1);
        Grant p = new Grant("n1", new Ask(4000, 8192, 1, 300, 2048, List.of()), List.of(new CardShare(2, 300, 2048)));
        NodeState used = empty.with(p);
        assertThat(used.freeCpu()).isEqualTo(12_000);
        assertThat(used.freeMemory()).isEqualTo(57_344);
        assertThat(used.freeMilli(2)).isEqualTo(700);
        assertThat(used.freeMemory(2)).isEqualTo(14_336);
        assertThat(used.pods()).isEqualTo(1);
        assertThat(used.gpuPodTags()).containsEntry("share", 1);
        NodeState back = used.without(p);
        assertThat(back.freeCpu()).isEqualTo(16_000);
        assertThat(back.freeMilli(2)).isEqualTo(1000);
        assertThat(back.gpuPodTags()).isEmpty();
    }

    @Test
    void refusesToTakeACardPastItsCapacityAndChangesNothing() {
        NodeState state = withUsed(n1, 0, 800);
        Grant p = new Grant("n1", Ask.computeSlice(0, 0, 300), List.of(new CardShare(1, 300, 0)));
        assertThatThrownBy(() -> state.with(p))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("node n1: card 1 would hold 1100 of 1000 milli and 0 of 16384 MiB");
        assertThat(state.freeMilli(1)).isEqualTo(200);
    }

    @Test
    void refusesCpuPastCapacity() {
        Grant p = new Grant("n1", Ask.cpuOnly(17_000, 0), List.of());
        assertThatThrownBy(() -> NodeState.empty(n1).with(p))
                .hasMessage("node n1 would hold 17000 milli-CPU, capacity 16000");
    }

    @Test
    void refusesWholeCardsOnAUsedCard() {
        Grant p = new Grant("n1", Ask.wholeCards(0, 0, 1), List.of(new CardShare(0, 1000, 16_384)));
        assertThatThrownBy(() -> withUsed(n1, 100).with(p))
                .hasMessage("node n1: card 0 is not free for a whole-card placement");
    }

    @Test
    void refusesToRemoveWhatIsNotHeld() {
        Grant p = new Grant("n1", Ask.computeSlice(0, 0, 300), List.of(new CardShare(1, 300, 0)));
        assertThatThrownBy(() -> withUsed(n1, 300).without(p))
                .hasMessage("node n1: card 1 does not hold CardShare[card=1, milli=300, memoryMib=0]");
    }

    @Test
    void unhealthyCardsHaveNoFreeShareAndDoNotFit() {
        Node sick = n1.withCards(n1.cards().stream()
                .map(c -> c.index() == 0 ? c.withHealth(Health.UNHEALTHY) : c)
                .toList());
        NodeState state = NodeState.empty(sick);
        assertThat(state.freeShare(0)).isZero();
        assertThat(state.freeShareTotal()).isEqualTo(3000);
        assertThat(state.cardFits(Ask.computeSlice(0, 0, 100), 0)).isFalse();
        assertThat(state.fittingCards(Ask.wholeCards(0, 0, 1))).containsExactly(1, 2, 3);
    }

    @Test
    void freeShareIsTheSmallerOfComputeAndMemory() {
        Grant p = new Grant("n1", new Ask(0, 0, 1, 100, 12_288, List.of()), List.of(new CardShare(0, 100, 12_288)));
        // compute left 900; memory left 4096 of 16384 = 250 milli
        assertThat(NodeState.empty(n1).with(p).freeShare(0)).isEqualTo(250);
    }

    @Test
    void reasonsComeInTheOrderAPersonFixesThem() {
        NodeState state = withUsed(n1, 900, 900, 900, 900);
        assertThat(state.check(Ask.cpuOnly(20_000, 999_999))).isEqualTo(Reason.INSUFFICIENT_CPU);
        assertThat(state.check(Ask.cpuOnly(1000, 999_999))).isEqualTo(Reason.INSUFFICIENT_MEMORY);
        assertThat(state.check(Ask.computeSlice(1000, 10, 200))).isEqualTo(Reason.INSUFFICIENT_GPU);
        assertThat(state.check(Ask.computeSlice(1000, 10, 100))).isEqualTo(Reason.FITS);
        assertThat(state.check(Ask.computeSlice(1000, 10, 100).withModels(List.of("A100"))))
                .isEqualTo(Reason.MODEL_NOT_ACCEPTED);
        assertThat(NodeState.empty(node("cpu", 1000, 1000, 0, "")).check(Ask.wholeCards(0, 0, 1)))
                .isEqualTo(Reason.NO_GPU);
    }

    @Test
    void explainsAMissingSliceWithTheLargestFreeCard() {
        NodeState state = withUsed(n1, 900, 400, 1000, 1000);
        Fit fit = state.explain(Ask.computeSlice(0, 0, 700));
        assertThat(fit)
                .isEqualTo(new Fit.DoesNotFit(
                        Reason.INSUFFICIENT_GPU,
                        "n1",
                        "no card has 700 milli free; largest free is 600 milli on card 1"));
        assertThat(((Fit.DoesNotFit) fit).message())
                .isEqualTo("node n1: no card has 700 milli free; largest free is 600 milli on card 1");
    }

    @Test
    void explainsAMissingMemorySliceInMib() {
        Grant p = new Grant("n1", new Ask(0, 0, 1, 0, 10_240, List.of()), List.of(new CardShare(2, 0, 10_240)));
        NodeState state = withUsed(n1, 1000, 1000, 0, 1000).with(p);
        Fit fit = state.explain(new Ask(0, 0, 1, 0, 8192, List.of()));
        assertThat(fit)
                .isEqualTo(new Fit.DoesNotFit(
                        Reason.INSUFFICIENT_GPU,
                        "n1",
                        "no card has 8192 MiB free; largest free is 6144 MiB on card 2"));
    }

    @Test
    void explainsMissingWholeCards() {
        Fit fit = withUsed(n1, 100, 0, 100, 100).explain(Ask.wholeCards(0, 0, 2));
        assertThat(fit)
                .isEqualTo(new Fit.DoesNotFit(Reason.INSUFFICIENT_GPU, "n1", "1 whole cards free, the pod asks 2"));
    }

    @Test
    void explainsCpu() {
        assertThat(NodeState.empty(n1).explain(Ask.cpuOnly(32_000, 0)))
                .isEqualTo(
                        new Fit.DoesNotFit(Reason.INSUFFICIENT_CPU, "n1", "16000 milli-CPU free, the pod asks 32000"));
    }

    @Test
    void fitsExplainsNothing() {
        assertThat(NodeState.empty(n1).explain(Ask.wholeCards(1000, 1000, 4))).isInstanceOf(Fit.Fits.class);
    }
}
