package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.K8s;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.Snapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DecisionsTest {

    private final ClusterCache cache = new ClusterCache(p -> true, 1);
    private final Decisions decisions = new Decisions(BinpackPolicy::new);
    private final BinpackPolicy binpack = new BinpackPolicy();
    /** One policy throughout, so that its judgements are kept ({@code decisions} makes a new policy per call). */
    private final Decisions keeping = new Decisions(() -> binpack);

    private PodAsk ask(Map<String, String> limits) {
        return PodAsk.of(pod("ns", "p", "u", container("main", limits)), PodAsks.Units.DEFAULT);
    }

    private Map<String, Integer> prioritize(Decisions d, PodAsk ask, List<String> names) {
        int[] scores = d.prioritize(ask, names, cache.snapshot());
        Map<String, Integer> byName = new java.util.LinkedHashMap<>();
        for (int i = 0; i < scores.length; i++) {
            byName.put(names.get(i), scores[i]);
        }
        return byName;
    }

    private java.util.Optional<Decisions.Decided> decide(PodAsk ask, List<String> names) {
        Snapshot snapshot = cache.snapshot();
        return decisions.decide(ask, decisions.filter(ask, names, snapshot), snapshot);
    }

    private void hold(String node, String uid, int card, long memory) {
        var p = pod("ns", uid, uid, container("main", Map.of("elasticgpu.io/gpu-memory", Long.toString(memory))));
        cache.upsertPod(K8s.bound(
                p, node, new PodGrant(node, Map.of("main", List.of(new PodGrant.Share(card, "g", 0, memory))))));
    }

    @Test
    void failedNodesSayWhatIsMissingInSentencesKubeSchedulerCanCountAndNodesWithoutInventoryCannotBeHelped() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertNode(node("n2", 2, 16_384, 0));
        hold("n1", "x", 0, 12_000);
        hold("n1", "y", 1, 10_240);
        List<String> names = List.of("n1", "n2", "cpu-node");
        Filtered f = decisions.filter(ask(Map.of("elasticgpu.io/gpu-memory", "8192")), names, cache.snapshot());
        assertThat(f.fit()).containsExactly("n2");
        assertThat(f.failed())
                .containsExactly(
                        Map.entry("n1", "Elastic GPU: no card (or set of cards) has the GPU share the pod asks free"));
        assertThat(f.unresolvable())
                .containsExactly(
                        Map.entry("cpu-node", "no Elastic GPU inventory published; run the node agent on the node"));
        assertThat(f.reasons()).containsExactly(Map.entry("insufficient_gpu", 1), Map.entry("no_inventory", 1));
    }

    @Test
    void asksNoNodeCouldEverMeetAreErrors() {
        cache.upsertNode(node("n1", 8, 81_920, 4));
        assertThat(Decisions.impossible(
                        ask(Map.of("elasticgpu.io/gpu-memory", "100000")),
                        cache.snapshot().limits()))
                .contains("container main asks 100000 MiB of GPU memory on one card; the largest card in the cluster "
                        + "has 81920 MiB");
        assertThat(Decisions.impossible(
                        ask(Map.of("elasticgpu.io/gpu", "9")), cache.snapshot().limits()))
                .contains("container main asks 9 cards on one node; the node with most healthy cards has 8");
        assertThat(Decisions.impossible(
                        ask(Map.of("elasticgpu.io/gpu", "8")), cache.snapshot().limits()))
                .isEmpty();
        assertThat(Decisions.impossible(ask(Map.of("elasticgpu.io/gpu", "1")), new Snapshot.Limits(0, 0)))
                .contains("no node in the cluster publishes healthy Elastic GPU cards; check that the node agent runs "
                        + "on the GPU nodes");
    }

    @Test
    void multiCardPodsPreferNodesThatCanGiveThemNvlinkedCardsAsMuchAsTheWeightsSay() {
        cache.upsertNode(node("islands", 8, 16_384, 4)); // two NVLink islands of four
        cache.upsertNode(node("flat", 4, 16_384, 0)); // four cards across sockets
        List<String> names = List.of("islands", "flat");
        PodAsk fourAsk = ask(Map.of("elasticgpu.io/gpu", "4"));
        // binpack alone prefers the node the pod fills: flat (4 of 4 cards) over islands (4 of 8)
        assertThat(prioritize(new Decisions(BinpackPolicy::new, new Decisions.Weights(1, 0)), fourAsk, names))
                .containsExactly(Map.entry("islands", 0), Map.entry("flat", 10));
        // by default the links count twice the policy
        assertThat(prioritize(decisions, fourAsk, names))
                .containsExactly(Map.entry("islands", 10), Map.entry("flat", 0));
        // one-card pods have no links to weigh: the policy decides alone
        assertThat(prioritize(decisions, ask(Map.of("elasticgpu.io/gpu", "1")), names))
                .containsExactly(Map.entry("islands", 0), Map.entry("flat", 10));
    }

    @Test
    void onlyThePolicysBestGetTheTopScore() {
        cache.upsertNode(node("full", 2, 16_384, 0));
        cache.upsertNode(node("half", 2, 16_384, 0));
        cache.upsertNode(node("empty", 2, 16_384, 0));
        cache.upsertNode(node("nofit", 1, 16_384, 0));
        hold("full", "a", 0, 16_000);
        hold("half", "b", 0, 8_000);
        hold("nofit", "c", 0, 16_000);
        List<String> names = List.of("full", "half", "empty", "nofit");
        // binpack: share of the node's GPU used after placing 500 MiB (31 milli of a 16 GiB card):
        // full (2000 - 1023 + 31) / 2000 = 50.4 %, half (2000 - 1511 + 31) / 2000 = 26 %, empty 31 / 2000 = 1.55 %;
        // nofit has 384 MiB free. Scaled: full 10, empty 0, half floor(10 (26 - 1.55) / (50.4 - 1.55)) = 5
        Map<String, Integer> scores = prioritize(decisions, ask(Map.of("elasticgpu.io/gpu-memory", "500")), names);
        assertThat(scores)
                .containsExactly(
                        Map.entry("full", 10), Map.entry("half", 5), Map.entry("empty", 0), Map.entry("nofit", 0));
    }

    @Test
    void multiContainerPodsMustFitAsAWhole() {
        cache.upsertNode(node("n1", 1, 16_384, 0));
        var p = pod(
                "ns",
                "p",
                "u",
                container("a", Map.of("elasticgpu.io/gpu-memory", "10000")),
                container("b", Map.of("elasticgpu.io/gpu-memory", "10000")));
        PodAsk ask = PodAsk.of(p, PodAsks.Units.DEFAULT);
        Filtered f = decisions.filter(ask, List.of("n1"), cache.snapshot());
        assertThat(f.failed().get("n1")).isEqualTo(Decisions.category(Reason.INSUFFICIENT_GPU));
    }

    @Test
    void nodesThatFailForOneReasonFailWithOneSentenceWhateverTheirCardsLeaveFree() {
        cache.upsertNode(node("n1", 1, 16_384, 0));
        cache.upsertNode(node("n2", 1, 16_384, 0));
        hold("n1", "x", 0, 10_000);
        hold("n2", "y", 0, 12_000);
        Filtered f = decisions.filter(
                ask(Map.of("elasticgpu.io/gpu-memory", "8192")), List.of("n1", "n2"), cache.snapshot());
        assertThat(f.failed().values()).hasSize(2).containsOnly(Decisions.category(Reason.INSUFFICIENT_GPU));
    }

    @Test
    void theDecisionIsTheBestNodeAndOnATieTheFirstByName() {
        for (String n : List.of("c", "a", "b", "d")) {
            cache.upsertNode(node(n, 1, 16_384, 0));
        }
        hold("c", "x", 0, 8_000);
        hold("d", "y", 0, 8_000);
        var decided = decide(ask(Map.of("elasticgpu.io/gpu-memory", "4000")), List.of("d", "a", "c", "b"));
        assertThat(decided).hasValueSatisfying(d -> {
            assertThat(d.node())
                    .as("binpack: the fuller nodes c and d tie; c is first by name")
                    .isEqualTo("c");
            assertThat(d.assigned().placements().getFirst().shares().getFirst().memoryMib())
                    .isEqualTo(4000);
        });
        hold("c", "z", 0, 8_000);
        assertThat(decide(ask(Map.of("elasticgpu.io/gpu-memory", "4000")), List.of("d", "a", "b")))
                .hasValueSatisfying(d -> assertThat(d.node()).isEqualTo("d"));
    }

    @Test
    void aNodeIsJudgedAgainOnceItsStateChanges() {
        Decisions decisions = keeping;
        cache.upsertNode(node("n1", 1, 16_384, 0));
        PodAsk eightAsk = ask(Map.of("elasticgpu.io/gpu-memory", "8192"));
        assertThat(decisions.filter(eightAsk, List.of("n1"), cache.snapshot()).fit())
                .containsExactly("n1");
        hold("n1", "x", 0, 10_000);
        Filtered after = decisions.filter(eightAsk, List.of("n1"), cache.snapshot());
        assertThat(after.fit())
                .as("the judgement kept for the old state is not the new state's")
                .isEmpty();
        assertThat(after.failed()).containsKey("n1");
        assertThat(decisions.prioritize(eightAsk, List.of("n1"), cache.snapshot()))
                .containsExactly(0);
    }

    @Test
    void nodesMovedOutOfTheFilteredOnesAreNotDecided() {
        for (String n : List.of("c", "a", "b")) {
            cache.upsertNode(node(n, 1, 16_384, 0));
        }
        hold("c", "x", 0, 8_000);
        PodAsk fourAsk = ask(Map.of("elasticgpu.io/gpu-memory", "4000"));
        Snapshot snapshot = cache.snapshot();
        Filtered f = decisions.filter(fourAsk, List.of("a", "b", "c"), snapshot);
        assertThat(decisions.decide(fourAsk, f, snapshot).map(Decisions.Decided::node))
                .contains("c");
        Filtered withoutC = f.without("c"::equals, "held elsewhere", "unknown_holder");
        assertThat(withoutC.fit()).containsExactly("a", "b");
        assertThat(withoutC.entries()).hasSize(2);
        assertThat(withoutC.failed()).containsEntry("c", "held elsewhere");
        assertThat(withoutC.reasons()).containsEntry("unknown_holder", 1);
        assertThat(decisions.decide(fourAsk, withoutC, snapshot).map(Decisions.Decided::node))
                .contains("a");
        assertThat(f.without(n -> false, "never", "none")).isSameAs(f);
    }

    @Test
    void aNewNodeInTheSlotOfOneGoneIsJudgedAfresh() {
        Decisions decisions = keeping;
        cache.upsertNode(node("old", 1, 81_920, 0));
        PodAsk bigAsk = ask(Map.of("elasticgpu.io/gpu-memory", "40000"));
        assertThat(decisions.filter(bigAsk, List.of("old"), cache.snapshot()).fit())
                .containsExactly("old");
        int slot = cache.snapshot().entry("old").slot();
        cache.deleteNode("old");
        cache.upsertNode(node("new", 1, 16_384, 0));
        assertThat(cache.snapshot().entry("new").slot())
                .as("the slot the gone node left")
                .isEqualTo(slot);
        assertThat(decisions.filter(bigAsk, List.of("new"), cache.snapshot()).failed())
                .as("not the judgement made for the node that had the slot before")
                .containsKey("new");
    }
}
