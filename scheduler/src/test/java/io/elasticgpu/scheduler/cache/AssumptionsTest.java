package io.elasticgpu.scheduler.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Grant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AssumptionsTest {

    private final Assumptions assumptions = new Assumptions();
    private final PodGrant onCard1 =
            new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(1, "GPU-n1-1", 0, 8192))));
    private final PodHolding bind = PodHolding.of("n1", new PodResources.Totals(2000, 1024), onCard1);

    @Test
    void anAssumedBindCountsUntilItIsSeenWithItsAllocationAndForgettingItAfterwardsChangesNothing() {
        assumptions.assume("uid-a", bind);
        assertThat(assumptions.assumed("uid-a")).isSameAs(bind);

        assumptions.seenBound("uid-a", new Pods.Bound(onCard1, true));
        assertThat(assumptions.assumed("uid-a"))
                .as("the informer's view counts now")
                .isNull();
        assertThat(assumptions.forget("uid-a"))
                .as("nothing left to forget: no recount")
                .isFalse();
    }

    @Test
    void aFailedBindIsForgottenAndItsPodCountsAsTheInformerShowsIt() {
        assumptions.hold("uid-a", bind, new Hold(onCard1, 100));
        assumptions.assume("uid-a", bind);
        assertThat(assumptions.holds())
                .as("the bind's assumption replaces the hold")
                .isEmpty();

        assertThat(assumptions.forget("uid-a")).isTrue();
        assertThat(assumptions.assumed("uid-a")).isNull();
    }

    @Test
    void aReleasedHoldCountsNoMoreAndASecondReleaseChangesNothing() {
        assumptions.hold("uid-a", bind, new Hold(onCard1, 100));
        assertThat(assumptions.assumed("uid-a")).isSameAs(bind);

        assertThat(assumptions.release("uid-a")).isTrue();
        assertThat(assumptions.assumed("uid-a")).isNull();
        assertThat(assumptions.release("uid-a")).isFalse();
    }

    @Test
    void anAssumedBindIsNoHoldAndIsNotReleased() {
        assumptions.assume("uid-a", bind);
        assertThat(assumptions.release("uid-a")).isFalse();
        assertThat(assumptions.assumed("uid-a"))
                .as("only a failed bind forgets it")
                .isSameAs(bind);
    }

    @ParameterizedTest(name = "a hold until {0} at {1}: lapsed {2}")
    @CsvSource({
        // expiresAt - now = 100 - 99 = 1 > 0: still held
        "100, 99, false",
        // 100 - 100 = 0: held through its deadline
        "100, 100, false",
        // 100 - 101 = -1 < 0: lapsed
        "100, 101, true",
        // the clock wrapped: MAX - MIN = -1 in long arithmetic, so one nanosecond after MAX has lapsed
        "9223372036854775807, -9223372036854775808, true",
        // and MIN - MAX = 1: a hold until just after the wrap is still held just before it
        "-9223372036854775808, 9223372036854775807, false",
    })
    void aHoldLapsesOnlyOnceItsDeadlineHasPassedEvenAcrossTheClockWrapping(long expiresAt, long now, boolean lapsed) {
        assumptions.hold("uid-a", bind, new Hold(onCard1, expiresAt));

        assertThat(assumptions.lapsed(now)).isEqualTo(lapsed ? List.of("uid-a") : List.of());
    }

    @ParameterizedTest(name = "held {0}, seen with an allocation {1}, asking GPUs {2}: assumption ends {3}")
    @CsvSource({
        // seen with its allocation: what the informer shows is what was assumed
        "cards, true, true, true",
        "none, true, true, true",
        // a GPU pod seen bound without an allocation yet (its annotations come with the bind): keep counting the hold
        "cards, false, true, false",
        // a hold without cards is a pod without GPUs, which kube-scheduler bound itself
        "no-cards, false, true, true",
        // a DRA pod (asking no GPU by resource name) was bound by kube-scheduler: its claims hold its cards
        "cards, false, false, true",
        // nothing held, nothing assumed by a filter: a bind's assumption stays until its allocation is seen
        "none, false, true, false",
    })
    void aPodSeenBoundEndsWhatWasAssumedForItWhenTheClusterNowShowsIt(
            String held, boolean allocated, boolean asksGpu, boolean ends) {
        switch (held) {
            case "cards" -> assumptions.hold("uid-a", bind, new Hold(onCard1, 100));
            case "no-cards" -> assumptions.hold("uid-a", bind, new Hold(null, 100));
            default -> assumptions.assume("uid-a", bind);
        }
        assumptions.seenBound("uid-a", new Pods.Bound(allocated ? onCard1 : null, asksGpu));

        assertThat(assumptions.assumed("uid-a") == null).isEqualTo(ends);
        assertThat(assumptions.holds().isEmpty()).isEqualTo(ends || held.equals("none"));
    }

    @Test
    void anAllocatedClaimTakesTheCardsOfItsPodsHoldAndLeavesItsCpuAndMemory() {
        assumptions.hold("uid-d", bind, new Hold(onCard1, 100));

        assertThat(assumptions.cardsHeldByClaims("uid-d")).isTrue();
        List<Grant> left = assumptions.assumed("uid-d").placements();
        // 2000 m CPU and 1024 MiB held as before; the 8192 MiB of card 1 now the claim's
        assertThat(left).singleElement().satisfies(p -> {
            assertThat(p.ask().cpuMilli()).isEqualTo(2000);
            assertThat(p.ask().memoryMib()).isEqualTo(1024);
            assertThat(p.shares()).isEmpty();
        });
        assertThat(assumptions.cardsHeldByClaims("uid-other"))
                .as("no hold: nothing to change")
                .isFalse();
    }

    @Test
    void theHoldsHandedOutDoNotChangeWhenTheHoldsDo() {
        assumptions.hold("uid-a", bind, new Hold(onCard1, 100));
        Map<String, Hold> before = assumptions.holds();

        assumptions.hold("uid-b", bind, new Hold(onCard1, 200));
        assumptions.release("uid-a");

        assertThat(before).containsOnlyKeys("uid-a");
        assertThat(assumptions.holds()).containsOnlyKeys("uid-b");
        assertThat(assumptions.holds())
                .as("the same copy until the next change")
                .isSameAs(assumptions.holds());
    }
}
