package io.elasticgpu.simulator.report;

import io.elasticgpu.simulator.replay.MigComparison;
import io.elasticgpu.simulator.replay.MigReplay;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A MIG comparison as JSON: per replay (each share policy, {@code mig}, {@code mig-first-fit}) the GPU allocated at
 * 100 % arrival as the FGD paper counts it (what the placed pods asked), the pods placed, and, for MIG, the instances
 * and the compute and memory they hand out; the means over the seeds, and each seed.
 */
public final class MigReport {

    private MigReport() {}

    /** One replay's figures. */
    record Figures(
            double allocationPct,
            int pods,
            int placed,
            long instances,
            double computeBeyondAsksPct,
            double memoryHandedOutCards,
            double sharingComputeBeyondAsksPct,
            Map<String, Long> profiles) {}

    static Figures figures(MigComparison.Outcome o) {
        int placed = 0;
        for (int i = 0; i < o.log().size(); i++) {
            placed += o.log().failed(i) ? 0 : 1;
        }
        return new Figures(
                RunMetrics.of(o.log()).allocationAt(100),
                o.log().size(),
                placed,
                o.mig().map(MigReplay.Result::instances).orElse(0L),
                o.mig().map(m -> beyond(m.askedMilli(), m.handedOutMilli())).orElse(0.0),
                o.mig().map(MigReplay.Result::memoryHandedOut).orElse(0.0),
                o.mig()
                        .map(m -> beyond(m.sharingAskedMilli(), m.sharingHandedOutMilli()))
                        .orElse(0.0),
                o.mig().map(MigReplay.Result::profiles).orElse(Map.of()));
    }

    private static double beyond(long asked, double handedOut) {
        return asked == 0 ? 0 : 100 * (handedOut - asked) / asked;
    }

    public static String json(String trace, String geometry, List<MigComparison.SeedResult> results) {
        Map<String, List<Figures>> byName = new LinkedHashMap<>();
        for (MigComparison.SeedResult r : results) {
            r.outcomes()
                    .forEach(o -> byName.computeIfAbsent(o.name(), n -> new ArrayList<>())
                            .add(figures(o)));
        }
        StringBuilder json = new StringBuilder("{");
        json.append("\"trace\": \"").append(trace).append('"');
        json.append(", \"migGeometry\": \"").append(geometry).append('"');
        json.append(", \"seeds\": ")
                .append(results.stream().map(r -> Long.toString(r.seed())).collect(Collectors.joining(", ", "[", "]")));
        json.append(", \"mean\": {")
                .append(byName.entrySet().stream()
                        .map(e -> "\n  \"%s\": %s".formatted(e.getKey(), mean(e.getValue())))
                        .collect(Collectors.joining(",")))
                .append("\n}");
        json.append(", \"perSeed\": [")
                .append(results.stream()
                        .map(r -> "\n  {\"seed\": %d, %s}"
                                .formatted(
                                        r.seed(),
                                        r.outcomes().stream()
                                                .map(o -> "\"%s\": %s".formatted(o.name(), object(figures(o))))
                                                .collect(Collectors.joining(", "))))
                        .collect(Collectors.joining(",")))
                .append("\n]}");
        return json.toString();
    }

    private static String mean(List<Figures> all) {
        return object(new Figures(
                all.stream().mapToDouble(Figures::allocationPct).average().orElse(Double.NaN),
                (int) Math.round(all.stream().mapToInt(Figures::pods).average().orElse(0)),
                (int) Math.round(
                        all.stream().mapToInt(Figures::placed).average().orElse(0)),
                Math.round(all.stream().mapToLong(Figures::instances).average().orElse(0)),
                all.stream()
                        .mapToDouble(Figures::computeBeyondAsksPct)
                        .average()
                        .orElse(Double.NaN),
                all.stream()
                        .mapToDouble(Figures::memoryHandedOutCards)
                        .average()
                        .orElse(Double.NaN),
                all.stream()
                        .mapToDouble(Figures::sharingComputeBeyondAsksPct)
                        .average()
                        .orElse(Double.NaN),
                meanProfiles(all)));
    }

    private static Map<String, Long> meanProfiles(List<Figures> all) {
        Map<String, Long> sums = new LinkedHashMap<>();
        all.forEach(f -> f.profiles().forEach((p, n) -> sums.merge(p, n, Long::sum)));
        Map<String, Long> means = new LinkedHashMap<>();
        sums.forEach((p, n) -> means.put(p, Math.round((double) n / all.size())));
        return means;
    }

    private static String object(Figures f) {
        return ("{\"gpuAllocationPct\": %s, \"pods\": %d, \"placed\": %d, \"instances\": %d, \"computeBeyondAsksPct\":"
                        + " %s, \"memoryHandedOutCards\": %s, \"sharingComputeBeyondAsksPct\": %s, \"profiles\": {%s}}")
                .formatted(
                        number(f.allocationPct()),
                        f.pods(),
                        f.placed(),
                        f.instances(),
                        number(f.computeBeyondAsksPct()),
                        number(f.memoryHandedOutCards()),
                        number(f.sharingComputeBeyondAsksPct()),
                        f.profiles().entrySet().stream()
                                .map(e -> "\"%s\": %d".formatted(e.getKey(), e.getValue()))
                                .collect(Collectors.joining(", ")));
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }
}
