package io.elasticgpu.simulator.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.replay.MigComparison;
import io.elasticgpu.simulator.trace.SyntheticTrace;
import java.util.List;
import org.junit.jupiter.api.Test;

class MigReportTest {

    @Test
    void theJsonGivesEachReplaysAllocationAndWhatMigHandedOutBeyondTheAsks() throws Exception {
        Experiment experiment =
                new Experiment(SyntheticTrace.generate(SyntheticTrace.DEFAULT_SEED), Experiment.PAPER_INFLATION);
        MigComparison comparison = new MigComparison(
                experiment, MigGeometry.of("NVIDIA A100-SXM4-40GB").orElseThrow(), List.of("best-fit"));
        List<MigComparison.SeedResult> results = List.of(comparison.run(1), comparison.run(2));

        JsonNode json = new ObjectMapper().readTree(MigReport.json("synthetic", "NVIDIA A100-SXM4-40GB", results));

        assertThat(json.get("seeds")).hasSize(2);
        assertThat(json.get("perSeed")).hasSize(2);
        JsonNode mig = json.get("mean").get("mig");
        assertThat(mig.get("gpuAllocationPct").asDouble()).isBetween(0.0, 100.0);
        assertThat(mig.get("instances").asLong()).isPositive();
        assertThat(mig.get("sharingComputeBeyondAsksPct").asDouble()).isGreaterThanOrEqualTo(0);
        assertThat(mig.get("profiles").fieldNames()).toIterable().contains("1g.5gb", "7g.40gb");
        double bestFit = json.get("perSeed")
                .get(0)
                .get("best-fit")
                .get("gpuAllocationPct")
                .asDouble();
        double mean = (bestFit
                        + json.get("perSeed")
                                .get(1)
                                .get("best-fit")
                                .get("gpuAllocationPct")
                                .asDouble())
                / 2;
        assertThat(json.get("mean").get("best-fit").get("gpuAllocationPct").asDouble())
                .isCloseTo(mean, org.assertj.core.data.Offset.offset(0.001));
    }
}
