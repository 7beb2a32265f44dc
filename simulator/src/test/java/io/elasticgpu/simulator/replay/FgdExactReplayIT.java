package io.elasticgpu.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.elasticgpu.simulator.SharedFiles;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import org.junit.jupiter.api.Test;

/** Our FGD against one run of the paper's artifact, event by event (PROTOCOL.md, "Exact check"). */
class FgdExactReplayIT {

    @Test
    void everyDecisionOfTheRecordedFgdRunIsReproduced() {
        Trace trace = OpenbTrace.read(SharedFiles.require("traces/openb/openb_pod_list_default.csv"));
        RecordedRun recorded = RecordedRun.read(SharedFiles.require("placement/fgd-default-seed42-events.csv"));
        Experiment experiment = new Experiment(trace, Experiment.PAPER_INFLATION);

        RecordedRun.Comparison result = recorded.compare(trace, experiment.policy("fgd", 42), experiment.metric());

        assertThat(result.firstDifference()).isEqualTo("none");
        assertThat(result.matching()).isEqualTo(10_866);
        assertThat(result.events()).isEqualTo(10_866);
        for (int i = 0; i < result.events(); i++) {
            RecordedRun.Event event = recorded.events().get(i);
            assertThat(result.log().used(i)).as("GPU held after event %d", i).isEqualTo(event.usedMilli());
            assertThat(result.log().fragmentation(i))
                    .as("fragmentation after event %d", i)
                    .isCloseTo(event.fragmentationMilli(), within(0.01));
        }
    }
}
