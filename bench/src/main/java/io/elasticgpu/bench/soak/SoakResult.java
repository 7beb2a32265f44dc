package io.elasticgpu.bench.soak;

import java.util.List;
import java.util.Map;

/**
 * What {@code bench/run soak} saw: the load held, the faults, the broken invariants (each must be 0) and each
 * component's memory trend. Serialised as the benchmark's JSON ({@code podsPerSecond} counts pods bound).
 */
public record SoakResult(
        double minutes,
        int nodes,
        long seed,
        int podsCreated,
        int claimsCreated,
        int podsBound,
        int podsDeleted,
        double podsPerSecond,
        double p50Seconds,
        double p99Seconds,
        int auditSamples,
        Map<String, Integer> faults,
        List<String> faultLog,
        Map<String, Integer> violations,
        List<String> violationExamples,
        Map<String, Rss.Trend> rssMiB) {

    public int totalViolations() {
        return violations.values().stream().mapToInt(Integer::intValue).sum();
    }

    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("soak: %.1f min, %d nodes, seed %d%n".formatted(minutes, nodes, seed));
        out.append(
                ("pods created %d (%d through a claim), bound %d, deleted %d; %.2f bound/s; create->bound p50 %.2f s, "
                                + "p99 %.2f s%n")
                        .formatted(
                                podsCreated,
                                claimsCreated,
                                podsBound,
                                podsDeleted,
                                podsPerSecond,
                                p50Seconds,
                                p99Seconds));
        out.append("faults: ").append(faults).append('\n');
        out.append("audit samples: %d; violations: %d %s%n".formatted(auditSamples, totalViolations(), violations));
        violationExamples.forEach(e -> out.append("  ").append(e).append('\n'));
        out.append("%-24s %10s %10s %8s %8s%n".formatted("component", "start MiB", "end MiB", "growth", "samples"));
        rssMiB.forEach((c, t) -> out.append(
                "%-24s %10d %10d %7.1f%% %8d%n".formatted(c, t.start(), t.end(), t.growthPct(), t.samples())));
        return out.toString();
    }
}
