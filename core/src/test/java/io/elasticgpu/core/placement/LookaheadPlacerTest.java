package io.elasticgpu.core.placement;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.FgdPolicy;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.LookaheadPolicy;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class LookaheadPlacerTest {

    /** Every expected pod takes one whole card and 4 CPUs. */
    private static final Ask TYPICAL = Ask.wholeCards(4000, 0, 1);

    private static final TypicalWorkload WORKLOAD =
            TypicalWorkload.of(List.of(new TypicalWorkload.Typical(TYPICAL, 1)));

    private static Policy fgd() {
        return FgdPolicy.fgd(WORKLOAD);
    }

    private static Policy lookahead(int candidates, int pods) {
        return new LookaheadPolicy(
                "fgd-lookahead", fgd(), new Lookahead(candidates, pods, WORKLOAD, Fragmentation.gpuAndCpu(WORKLOAD)));
    }

    /** Node a: 2 cards, 8 CPUs; node b: 2 cards, 6 CPUs. Both leave a typical pod room after a 2-CPU card. */
    private static ClusterState cluster() {
        return new ClusterState(List.of(node("a", 8000, 64_000, 2, "T4"), node("b", 6000, 64_000, 2, "T4")));
    }

    private static List<String> replay(Policy policy, List<Ask> asks) {
        ClusterState cluster = cluster();
        Placer placer = new Placer(policy);
        List<String> out = new ArrayList<>();
        for (Ask ask : asks) {
            if (placer.place(ask, cluster) instanceof Decision.Placed p) {
                cluster.assume(p.placement());
                out.add(p.placement().node());
            } else {
                out.add("-");
            }
        }
        return out;
    }

    @Test
    void plainFgdTiesAndTakesTheEarlierNodeTheLookaheadSeesItCostsAPodLater() {
        Ask smallAsk = Ask.wholeCards(2000, 0, 1);
        List<Ask> asks = List.of(smallAsk, TYPICAL, TYPICAL, TYPICAL);
        // FGD scores both nodes alike for the 2-CPU pod (each keeps a card a typical pod fits), takes a, and then
        // has 2 CPUs beside b's last card: the fourth pod fails
        assertThat(replay(fgd(), asks)).containsExactly("a", "a", "b", "-");
        // placing two typical pods after it shows that a keeps room for both and b for one: the pod goes to b
        List<String> ahead = replay(lookahead(2, 2), asks);
        assertThat(ahead.getFirst()).isEqualTo("b");
        assertThat(ahead).doesNotContain("-");
    }

    @Test
    void oneDrawnPodIsTooShortToSeeTheDifferenceSoTheBetterScoredEarlierNodeWins() {
        Ask smallAsk = Ask.wholeCards(2000, 0, 1);
        assertThat(replay(lookahead(2, 1), List.of(smallAsk))).containsExactly("a");
    }

    @Test
    void elasticLookaheadScoresAsElasticAndRollsOutItsBestNodes() {
        Policy policy = Policies.create(
                PolicyName.ELASTIC_LOOKAHEAD, PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), WORKLOAD));
        NodeState node = NodeState.empty(node("a", 8000, 64_000, 2, "T4"));
        Ask sliceAsk = Ask.computeSlice(1000, 1000, 300);

        assertThat(policy.name()).isEqualTo("elastic-lookahead");
        assertThat(policy.choose(sliceAsk, node))
                .isEqualTo(FgdPolicy.elastic(WORKLOAD).choose(sliceAsk, node));
        assertThat(policy.lookahead()).hasValueSatisfying(l -> {
            assertThat(l.candidates()).isEqualTo(LookaheadPolicy.CANDIDATES);
            assertThat(l.podsPerRollout()).isEqualTo(LookaheadPolicy.PODS_PER_ROLLOUT);
            assertThat(l.workload()).isSameAs(WORKLOAD);
        });
        assertThat(FgdPolicy.elastic(WORKLOAD).lookahead()).isEmpty();
    }

    @Test
    void aPodWithoutGpuGoesWhereThePolicySendsIt() {
        // FGD ties a and b for a 2-CPU pod and takes a; rolled out like a GPU pod it would go to b (two typical pods
        // after it keep room on a, one on b), but pods without GPU are not rolled out
        Ask cpuOnlyAsk = Ask.cpuOnly(2000, 0);
        assertThat(replay(fgd(), List.of(cpuOnlyAsk))).containsExactly("a");
        assertThat(replay(lookahead(2, 2), List.of(cpuOnlyAsk))).containsExactly("a");
    }

    @Test
    void refusesSettingsThatCannotLookAhead() {
        Fragmentation measure = Fragmentation.gpuAndCpu(WORKLOAD);
        assertThatThrownBy(() -> new Lookahead(1, 2, WORKLOAD, measure))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("candidates must be at least 2, was 1");
        assertThatThrownBy(() -> new Lookahead(2, 0, WORKLOAD, measure))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("podsPerRollout must be at least 1, was 0");
    }

    @Test
    void aReplayRepeatsExactly() {
        List<Ask> asks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            asks.add(Ask.computeSlice(1000, 0, 300 + 100 * (i % 3)));
        }
        assertThat(replay(lookahead(2, 3), asks)).isEqualTo(replay(lookahead(2, 3), asks));
    }
}
