package io.elasticgpu.simulator.report;

import io.elasticgpu.simulator.replay.TflopsComparison;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** A TFLOPS comparison as JSON: per seed the fixed-share baseline and the TFLOPS run, and their means. */
public final class TflopsReport {

    private TflopsReport() {}

    public static String json(
            String trace, String policy, String precision, List<TflopsComparison.SeedResult> results) {
        StringBuilder json = new StringBuilder("{");
        json.append("\"trace\": \"").append(trace).append('"');
        json.append(", \"policy\": \"").append(policy).append('"');
        json.append(", \"precision\": \"").append(precision).append('"');
        json.append(", \"mean\": {\"fixedShares\": ")
                .append(mean(results.stream()
                        .map(TflopsComparison.SeedResult::fixedShares)
                        .toList()))
                .append(", \"tflops\": ")
                .append(mean(results.stream()
                        .map(TflopsComparison.SeedResult::tflops)
                        .toList()))
                .append('}');
        json.append(", \"seeds\": [")
                .append(results.stream()
                        .map(r -> "\n  {\"seed\": %d, \"fixedShares\": %s, \"tflops\": %s}"
                                .formatted(r.seed(), outcome(r.fixedShares()), outcome(r.tflops())))
                        .collect(Collectors.joining(",")))
                .append("\n]}");
        return json.toString();
    }

    private static String outcome(TflopsComparison.Outcome o) {
        return ("{\"pods\": %d, \"placed\": %d, \"gpuAllocationPct\": %s, \"sharingPods\": %d, \"sharingPlaced\": %d,"
                        + " \"tflopsAskedBySharingPods\": %s, \"tflopsAskedByPlaced\": %s, \"tflopsGivenToPlaced\":"
                        + " %s, \"placedGivenLessThanAsked\": %d}")
                .formatted(
                        o.pods(),
                        o.placed(),
                        number(o.gpuAllocationPercent()),
                        o.sharingPods(),
                        o.sharingPlaced(),
                        number(o.tflopsAskedBySharingPods()),
                        number(o.tflopsAskedByPlaced()),
                        number(o.tflopsGivenToPlaced()),
                        o.placedGivenLessThanAsked());
    }

    private static String mean(List<TflopsComparison.Outcome> outcomes) {
        return ("{\"placed\": %s, \"gpuAllocationPct\": %s, \"sharingPlaced\": %s, \"tflopsAskedByPlaced\": %s,"
                        + " \"tflopsGivenToPlaced\": %s, \"placedGivenLessThanAsked\": %s}")
                .formatted(
                        avg(outcomes, TflopsComparison.Outcome::placed),
                        avg(outcomes, TflopsComparison.Outcome::gpuAllocationPercent),
                        avg(outcomes, TflopsComparison.Outcome::sharingPlaced),
                        avg(outcomes, TflopsComparison.Outcome::tflopsAskedByPlaced),
                        avg(outcomes, TflopsComparison.Outcome::tflopsGivenToPlaced),
                        avg(outcomes, TflopsComparison.Outcome::placedGivenLessThanAsked));
    }

    private static String avg(List<TflopsComparison.Outcome> outcomes, ToDoubleFunction<TflopsComparison.Outcome> f) {
        return number(outcomes.stream().mapToDouble(f).average().orElse(Double.NaN));
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.2f", v);
    }
}
