package io.elasticgpu.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.simulator.SharedFiles;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TracePod;
import org.junit.jupiter.api.Test;

/** The workload estimate on the default trace is the paper's: 91 shapes, 35 typical, covering 95.26 % of pods. */
class TypicalPodsOnTraceIT {

    @Test
    void defaultTraceHas91ShapesOf35Typical() {
        Trace trace = OpenbTrace.read(SharedFiles.require("traces/openb/openb_pod_list_default.csv"));
        var workload = new Experiment(trace, Experiment.PAPER_INFLATION).workload();
        assertThat(workload.distinctShapes()).isEqualTo(91);
        assertThat(workload.typicals()).hasSize(35);
        assertThat(workload.coverage(trace.pods().stream().map(TracePod::ask).toList()) * 100)
                .isCloseTo(95.26, within(0.005));
    }

    @Test
    void theFirstCloneArrivesAt98PercentOnTheDefaultTrace() {
        Trace trace = OpenbTrace.read(SharedFiles.require("traces/openb/openb_pod_list_default.csv"));
        var order = Arrivals.order(
                trace.pods(),
                trace.capacityMilli(),
                1.3,
                java.util.random.RandomGeneratorFactory.of("L64X128MixRandom").create(42));
        long asked = trace.pods().stream().mapToLong(p -> p.ask().totalMilli()).sum();
        assertThat(100.0 * asked / trace.capacityMilli()).isCloseTo(98.0, within(0.05));
        assertThat(order.size()).isBetween(10_700, 11_000);
    }
}
