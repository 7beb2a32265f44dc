package io.elasticgpu.simulator.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.simulator.replay.EventLog;
import io.elasticgpu.simulator.replay.Replay;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class RunMetricsTest {

    /** One node of 4 cards (capacity 4000 milli); pods as given; binpack. */
    private static EventLog replay(Ask... pods) {
        Node node = Node.of(
                "n",
                64_000,
                1 << 20,
                100,
                List.of(
                        Card.of(0, "a", "T4", 1),
                        Card.of(1, "b", "T4", 1),
                        Card.of(2, "c", "T4", 1),
                        Card.of(3, "d", "T4", 1)));
        List<TracePod> arrivals = new ArrayList<>();
        for (int i = 0; i < pods.length; i++) {
            arrivals.add(new TracePod("p" + i, pods[i]));
        }
        TypicalWorkload workload = TypicalWorkload.estimate(List.of(pods), 100);
        var policy = Policies.create("binpack", PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), workload));
        return new Replay(List.of(node), policy, Fragmentation.gpuAndCpu(workload)).run(arrivals, done -> {});
    }

    @Test
    void levelsRoundHalfToEven() {
        // capacity 4000: 1% = 40 milli; 20 milli is level 0.5 -> 0, 60 is 1.5 -> 2, 100 is 2.5 -> 2
        assertThat(RunMetrics.level(20, 4000)).isZero();
        assertThat(RunMetrics.level(60, 4000)).isEqualTo(2);
        assertThat(RunMetrics.level(100, 4000)).isEqualTo(2);
        assertThat(RunMetrics.level(4000, 4000)).isEqualTo(100);
    }

    @Test
    void allocationIsTheMeanOverEventsAtALevelOrItsNeighbours() {
        EventLog log = replay(Ask.wholeCards(0, 0, 2), Ask.wholeCards(0, 0, 2), Ask.wholeCards(0, 0, 1));
        RunMetrics m = RunMetrics.of(log);
        // events: arrived 2000 (level 50) used 2000; 4000 (100) used 4000; 5000 (125) failed, used 4000
        assertThat(m.allocationAt(50)).isEqualTo(50);
        assertThat(m.allocationAt(100)).isEqualTo(100);
        assertThat(m.allocationAt(125)).isEqualTo(100);
        // level 49 has no event: the mean over levels 48..50 is the event at 50
        assertThat(m.allocationAt(49)).isEqualTo(50);
        // level 75 has no event near it
        assertThat(m.allocationAt(75)).isNaN();
        assertThat(m.firstFailure()).contains(new RunMetrics.FirstFailure(125, 0));
    }

    @Test
    void fragmentationIsReportedAgainstCapacityAndAgainstIdleCapacity() {
        // three 300-milli slices then a 900: typical pods are 300 (p 3/4) and 900 (p 1/4)
        EventLog log = replay(
                Ask.computeSlice(0, 0, 300),
                Ask.computeSlice(0, 0, 300),
                Ask.computeSlice(0, 0, 300),
                Ask.computeSlice(0, 0, 900));
        RunMetrics m = RunMetrics.of(log);
        // after the 3rd pod (arrived 900, level 23): binpack stacked all three on card 0 -> free [100, 1000, 1000,
        // 1000]
        // F = 0.75 * 100 (card 0 too small for 300) + 0.25 * 100 (too small for 900) = 100
        // amount = 100 * 100 / 4000 = 2.5 %, ratio = 100 * 100 / 3100 = 3.2258 %
        assertThat(m.fragAmount()[23]).isCloseTo(2.5, within(1e-9));
        assertThat(m.fragRatio()[23]).isCloseTo(100.0 * 100 / 3100, within(1e-9));
    }
}
