package io.elasticgpu.simulator.preemption;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One node of two cards; six best-effort shares of 300 milli (three a card), then a latency-sensitive pod asking 800
 * of one card. kube-scheduler's totals: 2,000 - 1,800 = 200 free, so it evicts the two latest (1,200 held, 800 free in
 * total) and the pod still fits no card (at most 1,000 - 300 = 700 on one); the next round finds no victim by the
 * totals. The extender's victims: the three of one card, and the pod is placed.
 */
class PreemptingReplayTest {

    private static final List<Node> NODES = List.of(Node.of(
            "n", 64_000, 256_000, 110, List.of(Card.of(0, "g0", "A100", 16_384), Card.of(1, "g1", "A100", 16_384))));

    private static List<TracePod> arrivals() {
        List<TracePod> pods = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            pods.add(new TracePod("be-" + i, Ask.computeSlice(0, 0, 300)));
        }
        pods.add(new TracePod("ls", Ask.computeSlice(0, 0, 800)));
        return pods;
    }

    private static PreemptingReplay.Result run(PreemptingReplay.Victims victims) {
        return new PreemptingReplay(NODES, new BinpackPolicy(), victims)
                .run(arrivals(), name -> name.startsWith("ls") ? 3 : 1);
    }

    @Test
    void kubeSchedulersTotalsEvictTwoPodsForNothing() {
        PreemptingReplay.Result r = run(PreemptingReplay.Victims.TOTALS);
        assertThat(r.preemptors()).isEqualTo(1);
        assertThat(r.placedByPreemption()).isZero();
        assertThat(r.evicted()).isEqualTo(2);
        assertThat(r.evictedForNothing()).isEqualTo(2);
    }

    @Test
    void theExtendersVictimsAreOneCardsThreeAndThePodIsPlaced() {
        PreemptingReplay.Result r = run(PreemptingReplay.Victims.CARDS);
        assertThat(r.placedByPreemption()).isEqualTo(1);
        assertThat(r.evicted()).isEqualTo(3);
        assertThat(r.evictedForNothing()).isZero();
        assertThat(r.evictedPerPlaced()).isEqualTo(3.0);
    }
}
