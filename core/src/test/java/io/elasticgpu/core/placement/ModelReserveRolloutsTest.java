package io.elasticgpu.core.placement;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.FgdPolicy;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The look-ahead's candidates under the model reserve: a pod that may go to any model is kept off a model that the
 * pods naming it are expected to fill, while another model has room, and goes there when nothing else fits.
 */
class ModelReserveRolloutsTest {

    private static final Ask ANY = Ask.wholeCards(1000, 0, 1);
    private static final Ask T4 = ANY.withModels(List.of("T4"));
    private static final Ask G2 = ANY.withModels(List.of("G2"));

    /**
     * 18 % of the GPU asked names T4, 17 % G2, the rest nothing. {@code elastic} sends a pod that names nothing to an
     * empty T4 node of two cards before an empty G2 node of eight (the replay test shows it).
     */
    private static final TypicalWorkload WORKLOAD = TypicalWorkload.of(List.of(
            new TypicalWorkload.Typical(T4, 0.18),
            new TypicalWorkload.Typical(G2, 0.17),
            new TypicalWorkload.Typical(ANY, 0.65)));

    private static ClusterState cluster() {
        return new ClusterState(List.of(node("t4", 16_000, 64_000, 2, "T4"), node("g2", 64_000, 256_000, 8, "G2")));
    }

    private static Policy lookahead() {
        return Policies.create(
                PolicyName.ELASTIC_LOOKAHEAD, PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), WORKLOAD));
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

    private static int[] candidates(Ask ask, ClusterState cluster) {
        Policy policy = lookahead();
        Rollouts rollouts = new Rollouts(policy, policy.lookahead().orElseThrow());
        return rollouts.candidates(
                ask,
                cluster,
                cluster.size(),
                i -> cluster.node(i).check(ask) == io.elasticgpu.core.snapshot.Reason.FITS,
                cluster::node,
                (a, b) -> false);
    }

    @Test
    void aPodThatNamesNoModelLeavesTheT4NodeToThePodsThatNameT4() {
        // T4 keeps 18 % of the cluster's 10 free cards three times over (5.4): a pod there would leave it 1; G2 keeps
        // 17 % three times over (5.1), and a pod there leaves it 7
        assertThat(candidates(ANY, cluster())).containsExactly(1);
        // a pod that names T4 keeps nothing from anyone, and G2 pods do not fit T4
        assertThat(candidates(T4, cluster())).containsExactly(0);
    }

    @Test
    void withNoOtherNodeLeftItTakesTheT4NodeAfterAll() {
        ClusterState cluster = cluster();
        for (int i = 0; i < 8; i++) {
            cluster.assume(Placer.placement(G2, cluster.node(1), new int[] {i}));
        }
        assertThat(candidates(ANY, cluster)).containsExactly(0);
    }

    @Test
    void soEveryPodIsPlacedWhereElasticLosesTheLastT4Pod() {
        List<Ask> asks = List.of(ANY, T4, T4);
        // elastic ties the nodes for the first pod, takes the earlier one, and has no T4 card left for the last pod
        assertThat(replay(FgdPolicy.elastic(WORKLOAD), asks)).containsExactly("t4", "t4", "-");
        assertThat(replay(lookahead(), asks)).containsExactly("g2", "t4", "t4");
    }

    @Test
    void withoutPodsThatNameModelsEveryFittingNodeIsACandidate() {
        TypicalWorkload anyModel = TypicalWorkload.of(List.of(new TypicalWorkload.Typical(ANY, 1)));
        Policy policy = Policies.create(
                PolicyName.ELASTIC_LOOKAHEAD, PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), anyModel));
        Rollouts rollouts = new Rollouts(policy, policy.lookahead().orElseThrow());
        ClusterState cluster = cluster();

        assertThat(rollouts.candidates(ANY, cluster, 2, i -> true, cluster::node, (a, b) -> false))
                .containsExactly(0, 1);
    }
}
