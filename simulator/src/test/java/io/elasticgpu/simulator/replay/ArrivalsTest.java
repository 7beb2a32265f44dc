package io.elasticgpu.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.List;
import java.util.random.RandomGeneratorFactory;
import org.junit.jupiter.api.Test;

class ArrivalsTest {

    private static final List<TracePod> PODS = List.of(
            new TracePod("c", Ask.wholeCards(0, 0, 2)),
            new TracePod("a", Ask.computeSlice(0, 0, 500)),
            new TracePod("b", Ask.cpuOnly(1, 1)));

    private static java.util.random.RandomGenerator random(long seed) {
        return RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
    }

    @Test
    void inflatesUntilTheNextClonesPerCardShareWouldPassTheTarget() {
        // capacity 10000, target 13000; the original pods ask 2500
        List<TracePod> order = Arrivals.order(PODS, 10_000, 1.3, random(42));
        long asked = order.stream().mapToLong(p -> p.ask().totalMilli()).sum();
        assertThat(asked).isBetween(13_000L - 2_000L, 13_000L + 1_000L);
        assertThat(order.subList(0, 3)).extracting(TracePod::name).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(order.get(3).name()).endsWith("-tuned-0");
        assertThat(order.getLast().name()).endsWith("-tuned-" + (order.size() - 4));
    }

    @Test
    void trimsAWorkloadAboveTheTarget() {
        // capacity 1000, target 1300: 2500 asked must shrink to at most 1300
        List<TracePod> order = Arrivals.order(PODS, 1_000, 1.3, random(1));
        assertThat(order.stream().mapToLong(p -> p.ask().totalMilli()).sum()).isLessThanOrEqualTo(1_300);
    }

    @Test
    void theSameSeedGivesTheSameOrderAndTheInputOrderDoesNotMatter() {
        List<TracePod> reversed = List.of(PODS.get(2), PODS.get(1), PODS.get(0));
        assertThat(Arrivals.order(PODS, 10_000, 1.3, random(5)).subList(0, 3))
                .isEqualTo(Arrivals.order(reversed, 10_000, 1.3, random(5)).subList(0, 3));
    }

    @Test
    void cpuOnlyTracesAreNotInflated() {
        List<TracePod> cpu = List.of(new TracePod("x", Ask.cpuOnly(1, 1)));
        assertThat(Arrivals.order(cpu, 10_000, 1.3, random(1))).hasSize(1);
    }
}
