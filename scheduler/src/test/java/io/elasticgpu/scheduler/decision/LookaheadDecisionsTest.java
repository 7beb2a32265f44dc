package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.placement.Decision;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.FgdPolicy;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.LookaheadPolicy;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.scheduler.K8s;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The extender's deciding filter with a look-ahead policy decides as the simulator's placer does: the same best
 * nodes rolled out on the same cluster, read from the cache's snapshot by slot.
 */
class LookaheadDecisionsTest {

    private final ClusterCache cache = new ClusterCache(p -> true, 1);

    private static PodAsk ask(String uid, Map<String, String> limits) {
        return PodAsk.of(pod("ns", uid, uid, container("main", limits)), PodAsks.Units.DEFAULT);
    }

    private static Map<String, String> limits(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> Map.of("elasticgpu.io/gpu", Integer.toString(1 + random.nextInt(2)), "cpu", "8");
            case 1 -> Map.of("elasticgpu.io/gpu-memory", "8192", "cpu", "4");
            case 2 -> Map.of("elasticgpu.io/gpu-memory", "20000", "cpu", "16");
            default -> Map.of("elasticgpu.io/gpu-memory", "4096", "cpu", "2");
        };
    }

    @Test
    void theFilterDecidesAsTheSimulatorsPlacerOnTheSameClusterAndNotAsThePlainPolicy() {
        SplittableRandom random = new SplittableRandom(7);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String name = "n%02d".formatted(i); // added in name order: slot order is cluster order
            cache.upsertNode(node(name, 1 + random.nextInt(8), 40_960, 0));
            names.add(name);
        }
        List<TypicalWorkload.Typical> typicals = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Ask typicalAsk =
                    ask("t" + i, limits(new SplittableRandom(i))).asks().getFirst();
            typicals.add(new TypicalWorkload.Typical(typicalAsk, 0.25));
        }
        TypicalWorkload workload = TypicalWorkload.of(typicals);
        Policy plain = FgdPolicy.elastic(workload);
        Policy policy = new LookaheadPolicy(
                "elastic-lookahead", plain, new Lookahead(4, 3, workload, Fragmentation.allResources(workload)));
        Decisions decisions = new Decisions(() -> policy);
        ClusterState cluster = new ClusterState(
                cache.snapshot().states().values().stream().map(NodeState::node).toList());
        Placer placer = new Placer(policy);
        Placer plainPlacer = new Placer(plain);

        int decided = 0;
        int unlikePlain = 0;
        for (int p = 0; p < 40; p++) {
            String uid = "p" + p;
            Map<String, String> limits = limits(random);
            PodAsk ask = ask(uid, limits);
            Snapshot snapshot = cache.snapshot();
            Decision simulated = placer.place(ask.asks().getFirst(), cluster);
            var filtered = decisions.filter(ask, names, snapshot);
            var ours = decisions.decide(ask, filtered, snapshot);
            if (!(simulated instanceof Decision.Placed placed)) {
                assertThat(ours)
                        .as("pod %d: the simulator places it nowhere", p)
                        .isEmpty();
                continue;
            }
            assertThat(ours).as("pod %d", p).isPresent();
            assertThat(ours.get().node())
                    .as("pod %d", p)
                    .isEqualTo(placed.placement().node());
            assertThat(ours.get().assigned().placements().getFirst().shares())
                    .as("pod %d's cards", p)
                    .isEqualTo(placed.placement().shares());
            if (plainPlacer.place(ask.asks().getFirst(), cluster) instanceof Decision.Placed other
                    && !other.placement().node().equals(placed.placement().node())) {
                unlikePlain++;
            }
            decided++;
            cluster.assume(placed.placement());
            var node = snapshot.node(ours.get().node()).orElseThrow();
            cache.upsertPod(K8s.bound(
                    pod("ns", uid, uid, container("main", limits)),
                    node.name(),
                    ours.get().assigned().grant(node, ask)));
        }
        assertThat(decided).as("pods placed").isGreaterThan(20);
        assertThat(unlikePlain)
                .as("decisions where the rollouts chose another node than the plain policy's best")
                .isPositive();
    }
}
