package io.elasticgpu.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Health;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Invariants of the placement engine over random clusters, random pods and every policy: capacity is never
 * exceeded, a placement always satisfies its request, and a policy decides the same way for the same seed.
 */
class PlacementPropertiesTest {

    private static final List<String> MODELS = List.of("T4", "A100", "V100M32");

    @Property(tries = 200)
    void capacityIsNeverExceededAndEveryPlacementSatisfiesItsRequest(
            @ForAll("clusters") List<Node> nodes,
            @ForAll("workloads") List<Ask> asks,
            @ForAll("policies") String policy,
            @ForAll long seed) {
        ClusterState cluster = new ClusterState(nodes);
        Placer placer = new Placer(Policies.create(policy, context(asks, seed)));
        List<Grant> held = new ArrayList<>();
        RandomGenerator departures =
                RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
        for (Ask ask : asks) {
            if (placer.place(ask, cluster) instanceof Decision.Placed placed) {
                NodeState before = cluster.node(placed.placement().node());
                assertSatisfies(placed.placement(), before);
                cluster.assume(placed.placement());
                held.add(placed.placement());
            }
            if (!held.isEmpty() && departures.nextInt(4) == 0) {
                cluster.forget(held.remove(departures.nextInt(held.size())));
            }
            assertWithinCapacity(cluster);
        }
        long used = held.stream().mapToLong(Grant::totalMilli).sum();
        assertThat(cluster.usedMilli()).isEqualTo(used);
    }

    @Property(tries = 30)
    void everyPolicyDecidesTheSameWayForTheSameSeed(
            @ForAll("clusters") List<Node> nodes,
            @ForAll("workloads") List<Ask> asks,
            @ForAll("policies") String policy,
            @ForAll long seed) {
        assertThat(run(nodes, asks, policy, seed)).isEqualTo(run(nodes, asks, policy, seed));
    }

    private static List<String> run(List<Node> nodes, List<Ask> asks, String policy, long seed) {
        ClusterState cluster = new ClusterState(nodes);
        Placer placer = new Placer(Policies.create(policy, context(asks, seed)));
        List<String> decisions = new ArrayList<>();
        for (Ask ask : asks) {
            Decision d = placer.place(ask, cluster);
            if (d instanceof Decision.Placed placed) {
                cluster.assume(placed.placement());
                decisions.add(
                        placed.placement().node() + List.of(placed.placement().shares()));
            } else {
                decisions.add("-");
            }
        }
        return decisions;
    }

    private static PolicyContext context(List<Ask> asks, long seed) {
        return PolicyContext.of(
                RandomGeneratorFactory.of("L64X128MixRandom").create(seed), TypicalWorkload.estimate(asks, 95));
    }

    private static void assertSatisfies(Grant p, NodeState node) {
        Ask ask = p.ask();
        assertThat(p.shares()).hasSize(ask.cards());
        assertThat(p.shares().stream().map(CardShare::card).distinct()).hasSize(ask.cards());
        for (CardShare share : p.shares()) {
            Card card = node.card(share.card());
            assertThat(card.healthy()).as("card %s healthy", card.id()).isTrue();
            assertThat(ask.acceptsModel(card.model()))
                    .as("model %s accepted by %s", card.model(), ask.models())
                    .isTrue();
            if (ask.wholeCards()) {
                assertThat(node.idle(share.card())).isTrue();
            } else {
                assertThat(share.milli()).isEqualTo(ask.milliPerCard());
                assertThat(share.memoryMib()).isEqualTo(ask.memoryMibPerCard());
            }
        }
    }

    private static void assertWithinCapacity(ClusterState cluster) {
        for (NodeState s : cluster.nodes()) {
            assertThat(s.freeCpu()).isNotNegative();
            assertThat(s.freeMemory()).isNotNegative();
            for (int i = 0; i < s.cardCount(); i++) {
                assertThat(s.usedMilli(i)).isBetween(0, s.card(i).computeMilli());
                assertThat(s.usedMemory(i)).isBetween(0L, s.card(i).memoryMib());
            }
        }
    }

    @Provide
    Arbitrary<String> policies() {
        return Arbitraries.of(Policies.NAMES);
    }

    @Provide
    Arbitrary<List<Node>> clusters() {
        return node().list().ofMinSize(1).ofMaxSize(4).map(PlacementPropertiesTest::renamed);
    }

    private static List<Node> renamed(List<Node> nodes) {
        List<Node> out = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            out.add(new Node("n" + i, n.cpuMilli(), n.memoryMib(), n.maxPods(), n.cards(), n.labels(), n.topology()));
        }
        return out;
    }

    private Arbitrary<Node> node() {
        Arbitrary<Integer> cards = Arbitraries.integers().between(0, 8);
        Arbitrary<String> model = Arbitraries.of(MODELS);
        Arbitrary<Long> cpu = Arbitraries.longs().between(1_000, 64_000);
        Arbitrary<Long> memory = Arbitraries.longs().between(1_024, 262_144);
        Arbitrary<Integer> sick = Arbitraries.integers().between(-1, 7);
        Arbitrary<Boolean> nvlinkPairs = Arbitraries.of(true, false);
        return Combinators.combine(cards, model, cpu, memory, sick, nvlinkPairs)
                .as((k, m, c, mem, unhealthy, pairs) -> {
                    List<Card> list = new ArrayList<>();
                    for (int i = 0; i < k; i++) {
                        list.add(new Card(
                                i,
                                "g" + i,
                                m,
                                16_384,
                                Card.WHOLE,
                                i == unhealthy ? Health.UNHEALTHY : Health.HEALTHY,
                                -1));
                    }
                    Topology.Builder t = Topology.builder(k);
                    for (int i = 0; pairs && i + 1 < k; i += 2) {
                        t.link(i, i + 1, Link.nvlink(2));
                    }
                    if (k > 2) {
                        t.link(0, k - 1, Link.of(LinkKind.PCIE_SWITCH));
                    }
                    return new Node("n", c, mem, 20, list, Map.of(), t.build());
                });
    }

    @Provide
    Arbitrary<List<Ask>> workloads() {
        Arbitrary<Long> cpu = Arbitraries.longs().between(0, 16_000);
        Arbitrary<Long> memory = Arbitraries.longs().between(0, 65_536);
        Arbitrary<Ask> cpuOnlyAsks = Combinators.combine(cpu, memory).as(Ask::cpuOnly);
        Arbitrary<Ask> wholeAsks = Combinators.combine(
                        cpu, memory, Arbitraries.integers().between(1, 4))
                .as(Ask::wholeCards);
        Arbitrary<Ask> sliceAsks = Combinators.combine(
                        cpu,
                        memory,
                        Arbitraries.integers().between(1, 3),
                        Arbitraries.integers().between(0, 999),
                        Arbitraries.of(0L, 0L, 4_096L, 6_144L, 10_240L))
                .as((c, m, k, milli, mib) -> new Ask(c, m, k, milli == 0 && mib == 0 ? 1 : milli, mib, List.of()));
        Arbitrary<Ask> restrictedAsks = sliceAsks.map(r -> r.withModels(List.of("A100")));
        return Arbitraries.oneOf(cpuOnlyAsks, wholeAsks, sliceAsks, restrictedAsks)
                .list()
                .ofMinSize(1)
                .ofMaxSize(60);
    }
}
