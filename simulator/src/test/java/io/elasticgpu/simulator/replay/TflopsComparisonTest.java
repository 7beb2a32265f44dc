package io.elasticgpu.simulator.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.elasticgpu.simulator.trace.SyntheticTrace;
import org.junit.jupiter.api.Test;

class TflopsComparisonTest {

    @Test
    void theSamePodsAskedInTflopsAreEachGivenAtLeastWhatTheyAskOnTheSyntheticMixedCluster() {
        // A100, V100M32, T4 and A10 nodes: every model is in the shipped table by alias
        var comparison = new TflopsComparison(
                new Experiment(SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED), Experiment.PAPER_INFLATION),
                ModelTable.shipped(),
                Precision.FP32,
                "best-fit");
        TflopsComparison.SeedResult r = comparison.run(42);

        assertThat(r.tflops().pods()).isEqualTo(r.fixedShares().pods());
        assertThat(r.tflops().sharingPods())
                .isEqualTo(r.fixedShares().sharingPods())
                .isPositive();
        assertThat(r.tflops().tflopsAskedBySharingPods())
                .isEqualTo(r.fixedShares().tflopsAskedBySharingPods());
        // every TFLOPS share is rounded up: nobody placed gets less than it asked
        assertThat(r.tflops().placedGivenLessThanAsked()).isZero();
        assertThat(r.tflops().tflopsGivenToPlaced())
                .isGreaterThanOrEqualTo(r.tflops().tflopsAskedByPlaced());
        assertThat(r.tflops().gpuAllocationPercent()).isBetween(0.0, 100.0);
    }
}
