package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The allocation curve walks the pods in arrival order; its last point is the allocation at the cut. */
class StandingTest {

    @Test
    void theCurveRisesWithTheBoundPodsAndEndsAtWhatTheyAsked() {
        // 200 pods of half a card on a 100-card cluster: 100 % asked; every third pod is left pending.
        List<TracePod> plan = IntStream.range(0, 200)
                .mapToObj(i -> new TracePod("p" + i, Ask.computeSlice(1000, 1024, 500)))
                .toList();
        boolean[] bound = new boolean[plan.size()];
        int granted = 0;
        for (int i = 0; i < bound.length; i++) {
            bound[i] = i % 3 != 0;
            granted += bound[i] ? 500 : 0;
        }
        List<Standing.Point> curve = Standing.curve(plan, bound, 100_000);
        assertThat(curve.getFirst()).isEqualTo(new Standing.Point(0, 0));
        assertThat(curve.getLast().arrivedPct()).isEqualTo(100.0);
        assertThat(curve.getLast().allocatedPct()).isEqualTo(100.0 * granted / 100_000);
        assertThat(curve).hasSize(101);
        List<Double> x = new ArrayList<>();
        for (int i = 1; i < curve.size(); i++) {
            assertThat(curve.get(i).allocatedPct())
                    .isGreaterThanOrEqualTo(curve.get(i - 1).allocatedPct())
                    .isLessThanOrEqualTo(curve.get(i).arrivedPct());
            x.add(curve.get(i).arrivedPct());
        }
        assertThat(x).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aPlanBelowTheCutStillEndsWithItsLastPod() {
        List<TracePod> plan =
                List.of(new TracePod("a", Ask.wholeCards(1, 1, 8)), new TracePod("b", Ask.computeSlice(1, 1, 250)));
        List<Standing.Point> curve = Standing.curve(plan, new boolean[] {false, true}, 100_000);
        assertThat(curve.getLast()).isEqualTo(new Standing.Point(8.25, 0.25));
    }
}
