package io.elasticgpu.bench.soak;

import java.util.List;
import java.util.Map;

/**
 * What {@code bench/run soak} saw: the load held, the faults, the broken invariants (each must be 0), each
 * component's memory trend, our JVMs' memory against the chart's limits, and the failovers timed. Serialised as the
 * benchmark's JSON ({@code podsPerSecond} counts pods bound).
 */
public record SoakResult(
        double minutes,
        int nodes,
        long seed,
        int podsCreated,
        int claimsCreated,
        int podsBound,
        int podsDeleted,
        int podsGivenUp,
        double podsPerSecond,
        double p50Seconds,
        double p99Seconds,
        int auditSamples,
        Map<String, Integer> faults,
        List<String> faultLog,
        Map<String, Integer> violations,
        List<String> violationExamples,
        Map<String, Rss.Trend> rssMiB,
        SoakResult.Memory memory,
        Map<String, Failovers.Summary> failovers,
        List<Failovers.Kill> kills) {

    /**
     * Our JVMs against the chart's memory limits.
     *
     * @param limits    how the limits were held (the cgroup) or why only the heap was sized
     * @param oomKills  processes killed at the limit, per component (each must be 0)
     * @param peakMib   the most memory each component's cgroup used
     * @param slopes    heap after a full collection and RSS, MiB a minute, over the run's end
     * @param perMinute every minute's figures, per component
     * @param pods      the users' pods each minute, beside the memory that follows them
     */
    public record Memory(
            String limits,
            Map<String, Long> oomKills,
            Map<String, Long> peakMib,
            Map<String, HeapSamples.Slope> slopes,
            Map<String, List<HeapSamples.Sample>> perMinute,
            List<Pods> pods) {

        /** For a soak that runs none of our JVMs under the chart's limits. */
        public static final Memory NOT_MEASURED =
                new Memory("not measured", Map.of(), Map.of(), Map.of(), Map.of(), List.of());
    }

    /**
     * The users' pods at one minute.
     *
     * @param minute  since the soak began
     * @param live    created and not yet deleted, bound or not
     * @param pending created and not yet bound
     */
    public record Pods(double minute, int live, int pending) {}

    public int totalViolations() {
        return violations.values().stream().mapToInt(Integer::intValue).sum();
    }

    public String table() {
        StringBuilder out = new StringBuilder();
        out.append("soak: %.1f min, %d nodes, seed %d%n".formatted(minutes, nodes, seed));
        out.append(("pods created %d (%d through a claim), bound %d, deleted %d (%d unbound, their users gave up); "
                        + "%.2f bound/s; create->bound p50 %.2f s, p99 %.2f s%n")
                .formatted(
                        podsCreated,
                        claimsCreated,
                        podsBound,
                        podsDeleted,
                        podsGivenUp,
                        podsPerSecond,
                        p50Seconds,
                        p99Seconds));
        out.append("faults: ").append(faults).append('\n');
        out.append("audit samples: %d; violations: %d %s%n".formatted(auditSamples, totalViolations(), violations));
        violationExamples.forEach(e -> out.append("  ").append(e).append('\n'));
        out.append("%-24s %10s %10s %8s %8s%n".formatted("component", "start MiB", "end MiB", "growth", "samples"));
        rssMiB.forEach((c, t) -> out.append(
                "%-24s %10d %10d %7.1f%% %8d%n".formatted(c, t.start(), t.end(), t.growthPct(), t.samples())));
        out.append("memory limits: ").append(memory.limits()).append('\n');
        out.append("%-16s %9s %14s %13s %9s %9s%n"
                .formatted("component", "oom kills", "peak MiB", "heap MiB/min", "RSS/min", "processes"));
        memory.slopes()
                .forEach((c, s) -> out.append("%-16s %9d %14d %13.3f %9.3f %9d%n"
                        .formatted(
                                c,
                                memory.oomKills().getOrDefault(c, 0L),
                                memory.peakMib().getOrDefault(c, -1L),
                                s.heapMibPerMinute(),
                                s.rssMibPerMinute(),
                                s.processes())));
        out.append("failovers (seconds from the kill to the next bind): ")
                .append(failovers)
                .append('\n');
        return out.toString();
    }
}
