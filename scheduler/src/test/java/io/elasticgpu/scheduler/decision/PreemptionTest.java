package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.K8s;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The victims {@link Preemption} chooses on one node, by the filter's own fit check. Cards of 16,384 MiB unless said
 * otherwise; the preemptor has priority 100 and every other pod 0 unless said otherwise.
 */
class PreemptionTest {

    private static final int HIGH = 100;

    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final Preemption preemption = new Preemption(BinpackPolicy::new);
    private DisruptionBudgets budgets = DisruptionBudgets.NONE;

    /** A pod of {@code priority} started at minute {@code started} holding {@code memory} MiB of card {@code card}. */
    private void slice(String uid, int card, long memory, int priority, int started) {
        Pod p = pod("ns", uid, uid, container("main", Map.of("elasticgpu.io/gpu-memory", Long.toString(memory))));
        cache.upsertPod(K8s.bound(
                aged(p, priority, started),
                "n1",
                new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(card, "g", 0, memory))))));
    }

    /** A pod holding card {@code card} whole. */
    private void whole(String uid, int card, int priority, int started) {
        Pod p = pod("ns", uid, uid, container("main", Map.of("elasticgpu.io/gpu", "1")));
        cache.upsertPod(K8s.bound(
                aged(p, priority, started),
                "n1",
                new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(card, "g", 1000, 16_384))))));
    }

    private static Pod aged(Pod p, int priority, int started) {
        return new PodBuilder(p)
                .editMetadata()
                .addToLabels("app", p.getMetadata().getName())
                .endMetadata()
                .editSpec()
                .withPriority(priority)
                .endSpec()
                .editStatus()
                .withPhase("Running")
                .withStartTime("2026-01-01T00:%02d:00Z".formatted(started))
                .endStatus()
                .build();
    }

    private Preemption.Chosen preempt(Map<String, String> limits, Set<String> proposed) {
        PodAsk ask = PodAsk.of(pod("ns", "high", "high", container("main", limits)), PodAsks.Units.DEFAULT);
        return preemption.choose(
                new Preemption.Question(ask.asks(), "high", HIGH, cache.holders("n1", proposed), proposed, budgets));
    }

    private static List<String> victims(Preemption.Chosen outcome) {
        assertThat(outcome).isInstanceOf(Preemption.Chosen.Evict.class);
        return ((Preemption.Chosen.Evict) outcome).victims();
    }

    @Test
    void aPodAskingMostOfACardEvictsThatCardsThreeSlicesNotTheTwoKubeSchedulerProposedOnTwoCards() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        // Each card: 3 x 5,000 = 15,000 MiB held, 1,384 free; the node's total free is 2,768.
        for (int i = 0; i < 3; i++) {
            slice("a" + i, 0, 5_000, 0, i);
            slice("b" + i, 1, 5_000, 0, 10 + i);
        }
        // kube-scheduler frees the node's total: 2,768 + 2 x 5,000 = 12,768 >= 12,000, with the two youngest (b2, b1),
        // which leave card 1 at 1,384 + 10,000 = 11,384 < 12,000. Only a whole card's three slices make 16,384.
        Preemption.Chosen outcome = preempt(Map.of("elasticgpu.io/gpu-memory", "12000"), Set.of("b2", "b1"));

        // Card 1's pods are the least important (started last): most important first, as kube-scheduler lists them.
        assertThat(victims(outcome)).containsExactly("b0", "b1", "b2");
        assertThat(((Preemption.Chosen.Evict) outcome).pdbViolations()).isZero();
    }

    @Test
    void theFewestPodsOfTheLowestPriorityGo() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        // Card 0: one pod of 8,192 at priority 10 and two of 4,096 at 0; card 1: one of 8,192 and two of 4,096, all 0.
        slice("important", 0, 8_192, 10, 0);
        slice("small-0", 0, 4_096, 0, 1);
        slice("small-1", 0, 4_096, 0, 2);
        slice("big", 1, 8_192, 0, 3);
        slice("tiny-0", 1, 4_096, 0, 4);
        slice("tiny-1", 1, 4_096, 0, 5);

        // 8,192 free on one card: {important} (priority 10) loses to any set of priority 0; of those, {big} alone
        // (one pod) beats {small-0, small-1} and {tiny-0, tiny-1} (two).
        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu-memory", "8192"), Set.of("tiny-1"))))
                .containsExactly("big");
    }

    @Test
    void aPodOfHigherPriorityIsNeverEvictedWhereLowerOnesAloneWouldDo() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        slice("important", 0, 16_384, 10, 0);
        slice("small-0", 1, 8_192, 0, 1);
        slice("small-1", 1, 8_192, 0, 2);

        // {important} is one pod, {small-0, small-1} two: the two of priority 0 go.
        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu-memory", "16384"), Set.of("important"))))
                .containsExactly("small-0", "small-1");
    }

    @Test
    void aPreemptorNoEvictionCanServeHasItsNodeDropped() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        // Each card holds 4,096 at priority 1,000 (above the preemptor's) beside 8,192 at 0.
        slice("keep-0", 0, 4_096, 1_000, 0);
        slice("keep-1", 1, 4_096, 1_000, 1);
        slice("low-0", 0, 8_192, 0, 2);
        slice("low-1", 1, 8_192, 0, 3);

        // 16,384 - 4,096 = 12,288 at most on either card, whatever goes.
        assertThat(preempt(Map.of("elasticgpu.io/gpu-memory", "13000"), Set.of("low-0")))
                .isInstanceOf(Preemption.Chosen.NoSet.class);
        // A whole card: neither can be emptied.
        assertThat(preempt(Map.of("elasticgpu.io/gpu", "1"), Set.of("low-0")))
                .isInstanceOf(Preemption.Chosen.NoSet.class);
    }

    @Test
    void aWholeCardPreemptorEmptiesTheCardThatTakesFewestEvictions() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        slice("a0", 0, 2_048, 0, 5);
        slice("a1", 0, 2_048, 0, 6);
        slice("a2", 0, 2_048, 0, 7);
        slice("b0", 1, 2_048, 0, 0);

        // Card 1 is emptied by one eviction, card 0 by three, though card 0's pods are younger.
        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu", "1"), Set.of("a2"))))
                .containsExactly("b0");
    }

    @Test
    void aTwoCardPreemptorFreesAnNvlinkPairRatherThanTwoUnlinkedCards() {
        cache.upsertNode(node("n1", 4, 16_384, 2)); // NVLink between 0-1 and between 2-3
        // Started in the order card 3, 1, 2, 0: the two youngest, on cards 0 and 2, share no NVLink.
        whole("w0", 0, 0, 9);
        whole("w1", 1, 0, 7);
        whole("w2", 2, 0, 8);
        whole("w3", 3, 0, 1);

        // Any two pods free two cards. Least important first: w0, w2, w1, w3 (ranks 0..3). {w0, w2} (ranks 0 + 1)
        // leaves two cards without NVLink; of the NVLink pairs {w0, w1} (0 + 2) holds younger pods than {w2, w3}
        // (1 + 3).
        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu", "2"), Set.of("w0", "w2"))))
                .containsExactly("w1", "w0");
    }

    @Test
    void victimsProtectedByADisruptionBudgetAreSparedWhenAnotherSetFrees() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        slice("guarded", 0, 8_192, 0, 9); // the youngest: first to go without a budget
        slice("x", 0, 8_192, 0, 1);
        slice("y", 1, 8_192, 0, 2);
        slice("z", 1, 8_192, 0, 3);
        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu-memory", "8192"), Set.of("guarded"))))
                .containsExactly("guarded");

        budgets = DisruptionBudgets.of(List.of(budget("guard", "guarded", 0)));
        Preemption.Chosen spared = preempt(Map.of("elasticgpu.io/gpu-memory", "8192"), Set.of("guarded"));
        assertThat(victims(spared)).containsExactly("z");
        assertThat(((Preemption.Chosen.Evict) spared).pdbViolations()).isZero();
    }

    @Test
    void aProtectedVictimGoesWhenNothingElseFreesAndTheViolationIsCounted() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        slice("guarded", 0, 16_384, 0, 0);
        slice("keep", 1, 4_096, 1_000, 1);
        budgets = DisruptionBudgets.of(List.of(budget("guard", "guarded", 0)));

        Preemption.Chosen outcome = preempt(Map.of("elasticgpu.io/gpu-memory", "16000"), Set.of("guarded"));
        assertThat(victims(outcome)).containsExactly("guarded");
        assertThat(((Preemption.Chosen.Evict) outcome).pdbViolations()).isEqualTo(1);
    }

    @Test
    void aPreemptorThatFitsTheCardsAlreadyLeavesKubeSchedulersVictimsAsProposed() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        slice("a", 0, 8_192, 0, 0);
        assertThat(preempt(Map.of("elasticgpu.io/gpu-memory", "8192"), Set.of("a")))
                .isInstanceOf(Preemption.Chosen.AsProposed.class);
    }

    @Test
    void proposedVictimsHoldingNoCardStayVictimsBesideTheCardsOnes() {
        cache.upsertNode(node("n1", 1, 16_384, 0));
        slice("gpu", 0, 16_384, 0, 0);
        cache.upsertPod(K8s.bound(
                aged(pod("ns", "web", "web", container("main", Map.of("cpu", "1"))), 0, 1), "n1", null));

        assertThat(victims(preempt(Map.of("elasticgpu.io/gpu-memory", "4096"), Set.of("web", "gpu"))))
                .containsExactly("gpu", "web");
    }

    private static PodDisruptionBudget budget(String name, String app, int allowed) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", app)
                .endSelector()
                .endSpec()
                .withNewStatus()
                .withDisruptionsAllowed(allowed)
                .endStatus()
                .build();
    }
}
