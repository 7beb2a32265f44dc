package io.elasticgpu.simulator.report;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Policy reports as JSON: one object for one policy, an array for several. Written by hand because the format is
 * small and fixed; numbers carry two decimals, a value that does not exist is {@code null}.
 */
public final class JsonReport {

    private JsonReport() {}

    public static String of(List<PolicyReport> reports) {
        if (reports.size() == 1) {
            return object(reports.getFirst());
        }
        return reports.stream().map(JsonReport::object).collect(Collectors.joining(",\n", "[\n", "\n]"));
    }

    static String object(PolicyReport r) {
        StringBuilder json = new StringBuilder("{");
        json.append("\"trace\": ").append(string(r.trace()));
        json.append(", \"policy\": ").append(string(r.policy()));
        json.append(", \"seeds\": ").append(r.seeds());
        json.append(", \"allocationAtArrival100\": {\"mean\": ")
                .append(number(r.allocationAt100().mean()))
                .append(", \"sd\": ")
                .append(number(r.allocationAt100().sd()))
                .append('}');
        r.limits()
                .ifPresent(l -> json.append(", \"boundPct\": ")
                        .append(number(l.boundPct()))
                        .append(", \"offlinePct\": ")
                        .append(number(l.offlinePct())));
        json.append(", \"unallocatedGpusAtArrival100\": ").append(number(r.unallocatedGpusAt100()));
        json.append(", \"firstFailure\": ")
                .append(r.firstFailure()
                        .map(f -> "{\"arrivedPct\": %s, \"unallocatedGpus\": %s}"
                                .formatted(number(f.arrivedPct()), number(f.unallocatedGpus())))
                        .orElse("null"));
        json.append(", \"fragmentationAtArrival\": {")
                .append(r.fragmentation().entrySet().stream()
                        .sorted(java.util.Map.Entry.comparingByKey())
                        .map(e -> "\"%d\": {\"amountPct\": %s, \"ratioPct\": %s}"
                                .formatted(
                                        e.getKey(),
                                        number(e.getValue().amountPct()),
                                        number(e.getValue().ratioPct())))
                        .collect(Collectors.joining(", ")))
                .append('}');
        json.append(", \"curve\": [");
        double[] curve = r.curve();
        for (int level = 0; level < curve.length; level++) {
            json.append(level == 0 ? "" : ", ")
                    .append('[')
                    .append(level)
                    .append(", ")
                    .append(number(curve[level]))
                    .append(']');
        }
        json.append(']');
        r.replay()
                .ifPresent(check -> json.append(", \"replay\": {\"events\": ")
                        .append(check.events())
                        .append(", \"matching\": ")
                        .append(check.matching())
                        .append(", \"firstDifference\": ")
                        .append(string(check.firstDifference()))
                        .append('}'));
        json.append(", \"elapsedMs\": ").append(r.elapsedMs());
        return json.append('}').toString();
    }

    static String number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "null" : String.format(Locale.ROOT, "%.2f", value);
    }

    static String string(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return out.append('"').toString();
    }
}
