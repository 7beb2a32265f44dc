package io.elasticgpu.simulator.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportFormatTest {

    private static PolicyReport report() {
        RunMetrics a = new RunMetrics(
                new double[] {0, 50, 90}, new double[] {0, 1, 2}, new double[] {0, 10, 20}, Optional.empty());
        RunMetrics b = new RunMetrics(
                new double[] {0, 52, 94},
                new double[] {0, 1, 2},
                new double[] {0, 10, 20},
                Optional.of(new RunMetrics.FirstFailure(1.5, 3)));
        return PolicyReport.summarise("t", "fgd", List.of(1L, 2L), List.of(a, b), 200_000, Optional.empty(), 1234);
    }

    @Test
    void summarisesSeedsWithMeanAndSampleDeviation() {
        PolicyReport r = report();
        // levels 0..2 only: level 100 does not exist in these toy runs
        assertThat(r.allocationAt100().mean()).isNaN();
        assertThat(r.curve()).containsExactly(0, 51, 92);
        assertThat(r.firstFailure()).contains(new RunMetrics.FirstFailure(1.5, 3));
        assertThat(Statistic.of(90, 94)).isEqualTo(new Statistic(92, Math.sqrt(8), 2));
    }

    @Test
    void writesTheDocumentedJson() {
        assertThat(JsonReport.of(List.of(report())))
                .isEqualTo("{\"trace\": \"t\", \"policy\": \"fgd\", \"seeds\": [1, 2],"
                        + " \"allocationAtArrival100\": {\"mean\": null, \"sd\": null}, "
                        + "\"unallocatedGpusAtArrival100\": null,"
                        + " \"firstFailure\": {\"arrivedPct\": 1.50, \"unallocatedGpus\": 3.00},"
                        + " \"fragmentationAtArrival\": {\"80\": {\"amountPct\": null, \"ratioPct\": null},"
                        + " \"90\": {\"amountPct\": null, \"ratioPct\": null}, \"100\": {\"amountPct\": null, "
                        + "\"ratioPct\": null}},"
                        + " \"curve\": [[0, 0.00], [1, 51.00], [2, 92.00]], \"elapsedMs\": 1234}");
    }

    @Test
    void severalPoliciesMakeAnArray() {
        assertThat(JsonReport.of(List.of(report(), report())))
                .startsWith("[\n{")
                .endsWith("}\n]");
    }

    @Test
    void jsonStringsAreEscaped() {
        assertThat(JsonReport.string("a\"b\\c\n")).isEqualTo("\"a\\\"b\\\\c\\n\"");
    }

    @Test
    void chartsDrawEveryPolicyAndThePublishedPoints() {
        StringBuilder drawn = new StringBuilder();
        Chart.draw(
                new Chart.Canvas() {
                    @Override
                    public void line(double x1, double y1, double x2, double y2, String color, double width) {}

                    @Override
                    public void circle(double x, double y, double r, String color) {
                        drawn.append("circle ");
                    }

                    @Override
                    public void text(double x, double y, String text, String color, int size, boolean centred) {
                        drawn.append(text).append('|');
                    }
                },
                "t",
                List.of(new Chart.Line(
                        report().policy(),
                        report().curve(),
                        report().allocationAt100().mean())),
                Map.of("fgd", 95.0));
        assertThat(drawn.toString()).contains("fgd NaN|").contains("circle").contains("published (FGD artifact)");
    }
}
