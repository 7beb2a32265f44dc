package io.elasticgpu.core.placement;

import static io.elasticgpu.core.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.FgdPolicy;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.NodeStates;
import io.elasticgpu.core.snapshot.Reason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The rollouts keep each shape's best nodes between decisions; they must choose exactly as rollouts that scan every
 * node for every drawn shape in every decision ({@link FullScan}, the rule written plainly), while nodes fill,
 * empty, go and come back.
 */
class RolloutsTest {

    private static final List<String> MODELS = List.of("T4", "A100");

    @Property(tries = 60)
    void keptBestNodesChooseAsAFullScanDoes(
            @ForAll long seed,
            @ForAll @IntRange(min = 30, max = 70) int nodes,
            @ForAll @IntRange(min = 2, max = 8) int candidates,
            @ForAll @IntRange(min = 1, max = 6) int podsPerRollout) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Ask> asks = List.of(
                Ask.computeSlice(2000, 4096, 250),
                Ask.computeSlice(4000, 8192, 500),
                Ask.wholeCards(8000, 16_384, 1),
                Ask.wholeCards(16_000, 32_768, 2),
                Ask.computeSlice(1000, 2048, 100));
        double[] weight = random.doubles(asks.size(), 0.1, 1).toArray();
        double sum = Arrays.stream(weight).sum();
        List<TypicalWorkload.Typical> typicals = new ArrayList<>();
        for (int s = 0; s < asks.size(); s++) {
            typicals.add(new TypicalWorkload.Typical(asks.get(s), weight[s] / sum));
        }
        TypicalWorkload workload = TypicalWorkload.of(typicals);
        Policy policy = FgdPolicy.elastic(workload);
        Lookahead lookahead = new Lookahead(candidates, podsPerRollout, workload, Fragmentation.allResources(workload));
        Rollouts kept = new Rollouts(policy, lookahead);
        FullScan full = new FullScan(policy, lookahead);

        Node[] all = new Node[nodes];
        NodeState[] states = new NodeState[nodes];
        for (int i = 0; i < nodes; i++) {
            all[i] = node(
                    "n" + i,
                    8000L * (1 + random.nextInt(8)),
                    65_536L * (1 + random.nextInt(4)),
                    1 + random.nextInt(8),
                    MODELS.get(random.nextInt(MODELS.size())));
            states[i] = NodeState.empty(all[i]);
        }
        NodeStates view = new NodeStates() {
            @Override
            public int size() {
                return states.length;
            }

            @Override
            public NodeState node(int index) {
                return states[index];
            }
        };
        List<Grant> held = new ArrayList<>();
        int decided = 0;
        for (int step = 0; step < 120; step++) {
            Ask ask = asks.get(random.nextInt(asks.size()));
            int[] top = topByScore(policy, ask, states, candidates);
            int[][] cards = new int[top.length][];
            for (int k = 0; k < top.length; k++) {
                cards[k] = policy.choose(ask, states[top[k]]).cards();
            }
            int chosen = kept.choose(ask, view, top, cards, top.length);
            assertThat(chosen).as("decision %d", step).isEqualTo(full.choose(ask, view, top, cards, top.length));
            if (top.length > 0) {
                decided++;
                int at = top[chosen];
                Grant grant = Placer.placement(ask, states[at], cards[chosen]);
                states[at] = states[at].with(grant);
                held.add(grant);
            }
            if (!held.isEmpty() && random.nextInt(3) == 0) {
                Grant gone = held.remove(random.nextInt(held.size()));
                int at = Integer.parseInt(gone.node().substring(1));
                if (states[at] != null) {
                    states[at] = states[at].without(gone);
                }
            }
            int flip = random.nextInt(nodes);
            if (random.nextInt(10) == 0) {
                // a node goes (its slot left empty) or comes back empty
                states[flip] = states[flip] == null ? NodeState.empty(all[flip]) : null;
                int node = flip;
                held.removeIf(g -> g.node().equals("n" + node));
            }
        }
        assertThat(decided).isPositive();
    }

    /** The {@code count} nodes that score best for {@code ask}, best first, the lower index on equal scores. */
    private static int[] topByScore(Policy policy, Ask ask, NodeState[] states, int count) {
        List<double[]> fit = new ArrayList<>();
        for (int i = 0; i < states.length; i++) {
            if (states[i] != null && states[i].check(ask) == Reason.FITS) {
                fit.add(new double[] {policy.choose(ask, states[i]).score(), i});
            }
        }
        fit.sort((a, b) -> a[0] != b[0] ? Double.compare(b[0], a[0]) : Double.compare(a[1], b[1]));
        return fit.stream().limit(count).mapToInt(x -> (int) x[1]).toArray();
    }

    /** The look-ahead's rule with nothing kept between decisions: every drawn shape scans every node. */
    private static final class FullScan {
        private final Policy policy;
        private final Lookahead lookahead;
        private long decisions;

        FullScan(Policy policy, Lookahead lookahead) {
            this.policy = policy;
            this.lookahead = lookahead;
        }

        int choose(Ask ask, NodeStates cluster, int[] candidates, int[][] cards, int count) {
            long decision = decisions++;
            if (count < 2) {
                return 0;
            }
            List<Ask> asks = lookahead.shapes();
            double[] cumulative = lookahead.cumulative();
            int pods = lookahead.podsPerRollout();
            SplittableRandom random = new SplittableRandom(0x5DEE_CE66_DL ^ (decision * 0x9E37_79B9_7F4A_7C15L));
            int[] drawn = new int[pods];
            for (int m = 0; m < pods; m++) {
                double u = random.nextDouble();
                int s = 0;
                while (s < cumulative.length - 1 && u >= cumulative[s]) {
                    s++;
                }
                drawn[m] = s;
            }
            int winner = 0;
            double least = Double.POSITIVE_INFINITY;
            List<NodeState> seen = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                NodeState before = cluster.node(candidates[k]);
                if (seen.stream().anyMatch(x -> alike(x, before))) {
                    continue;
                }
                seen.add(before);
                List<Integer> touched = new ArrayList<>(List.of(candidates[k]));
                List<NodeState> touchedState =
                        new ArrayList<>(List.of(before.with(Placer.placement(ask, before, cards[k]))));
                double growth = lookahead.measure().of(touchedState.getFirst())
                        - lookahead.measure().of(before);
                for (int s : drawn) {
                    Ask drawnAsk = asks.get(s);
                    int at = -1;
                    double score = 0;
                    int[] chosen = null;
                    for (int i = 0; i < cluster.size(); i++) {
                        int t = touched.indexOf(i);
                        NodeState state = t >= 0 ? touchedState.get(t) : cluster.node(i);
                        if (state == null || state.check(drawnAsk) != Reason.FITS) {
                            continue;
                        }
                        Choice c = policy.choose(drawnAsk, state);
                        if (at < 0 || c.score() > score) {
                            at = i;
                            score = c.score();
                            chosen = c.cards();
                        }
                    }
                    if (at < 0) {
                        continue;
                    }
                    int t = touched.indexOf(at);
                    NodeState old = t >= 0 ? touchedState.get(t) : cluster.node(at);
                    NodeState updated = old.with(Placer.placement(drawnAsk, old, chosen));
                    growth += lookahead.measure().of(updated)
                            - lookahead.measure().of(old);
                    if (t >= 0) {
                        touchedState.set(t, updated);
                    } else {
                        touched.add(at);
                        touchedState.add(updated);
                    }
                }
                if (growth < least - 1e-9) {
                    least = growth;
                    winner = k;
                }
            }
            return winner;
        }

        private static boolean alike(NodeState a, NodeState b) {
            return a.node().model().equals(b.node().model())
                    && a.node().topology().equals(b.node().topology())
                    && a.freeCpu() == b.freeCpu()
                    && a.freeMemory() == b.freeMemory()
                    && a.freePods() == b.freePods()
                    && Arrays.equals(shares(a), shares(b));
        }

        private static long[] shares(NodeState s) {
            long[] out = new long[s.cardCount() * 3];
            for (int i = 0; i < s.cardCount(); i++) {
                out[3 * i] = s.freeShare(i);
                out[3 * i + 1] = s.freeMemory(i);
                out[3 * i + 2] = s.healthy(i) ? 1 : 0;
            }
            return out;
        }
    }
}
