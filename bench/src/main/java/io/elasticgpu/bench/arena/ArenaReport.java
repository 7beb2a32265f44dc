package io.elasticgpu.bench.arena;

import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.simulator.report.Chart;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The arena's results as people read them: a table with each contender's figures and its ratio against Elastic GPU
 * (the contender named for the default policy, {@value Policies#DEFAULT}, else {@code elastic}, else the first), and
 * the allocation-against-arrival curves as a chart. "over" counts cards over capacity and "lost" bound GPU pods
 * without a record of their cards, each by the contender's own records.
 */
public final class ArenaReport {

    private ArenaReport() {}

    /** The table; ratios are against the default policy's contender, else {@code elastic}'s, when one ran. */
    public static String table(List<Standing> standings) {
        Standing ours = standings.stream()
                .filter(s -> s.name().equals(Policies.DEFAULT))
                .findFirst()
                .or(() -> standings.stream()
                        .filter(s -> s.name().equals("elastic"))
                        .findFirst())
                .orElse(standings.getFirst());
        StringBuilder t = new StringBuilder(String.format(
                Locale.ROOT,
                "arena: trace %s, %d pods, ratios against %s%n",
                ours.trace(),
                ours.podsBound() + ours.podsPending(),
                ours.name()));
        t.append(String.format(
                Locale.ROOT,
                "%-22s %9s %7s %7s %7s %8s %7s %13s %6s %6s %8s %8s%n",
                "contender",
                "GPU alloc",
                "ratio",
                "bound",
                "pending",
                "pods/s",
                "ratio",
                "p50/p99 s",
                "over",
                "lost",
                "CPU s",
                "RSS MiB"));
        for (Standing s : standings) {
            t.append(String.format(
                    Locale.ROOT,
                    "%-22s %8.2f%% %6.3fx %7d %7d %8.1f %6.2fx %6.2f/%-6.2f %6d %6d %8.1f %8d%s%n",
                    s.name(),
                    s.allocationPct(),
                    s.allocationPct() / ours.allocationPct(),
                    s.podsBound(),
                    s.podsPending(),
                    s.podsPerSecond(),
                    s.podsPerSecond() / ours.podsPerSecond(),
                    s.p50BoundSeconds(),
                    s.p99BoundSeconds(),
                    s.overCommittedCards(),
                    s.unaccounted(),
                    s.cpuSeconds(),
                    s.peakRssMib(),
                    s.schedulerAlive() ? "" : "  (its scheduler had exited)"));
        }
        return t.toString();
    }

    /**
     * The curves as numbers: GPU allocated when 50, 60, … 90 % of capacity had been asked, and at the cut (after the
     * last pod), one row per contender.
     */
    public static String curveTable(List<Standing> standings) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%-22s", "GPU allocated at arrival"));
        for (int level = 50; level <= 90; level += 10) {
            t.append(String.format(Locale.ROOT, " %6d%%", level));
        }
        t.append(String.format(Locale.ROOT, " %7s%n", "cut"));
        for (Standing s : standings) {
            double[] levels = levels(s.curve());
            t.append(String.format(Locale.ROOT, "%-22s", s.name()));
            for (int level = 50; level <= 90; level += 10) {
                t.append(level < levels.length ? String.format(Locale.ROOT, " %6.2f%%", levels[level]) : "        -");
            }
            t.append(String.format(Locale.ROOT, " %6.2f%%%n", s.allocationPct()));
        }
        return t.toString();
    }

    /**
     * PodGrant against arrival, one line per contender, drawn by the simulator's chart so that the arena's curves
     * read as the simulator's do; SVG or PNG by the file's extension.
     */
    public static void chart(Path file, List<Standing> standings) {
        Chart.writeLines(
                file,
                standings.getFirst().trace() + " in the real control plane",
                standings.stream()
                        .map(s -> new Chart.Line(s.name(), levels(s.curve()), s.allocationPct()))
                        .toList(),
                Map.of());
    }

    /**
     * The curve at each whole percent of arrival, as the simulator's chart takes it: at level L, the allocation when
     * the pods had first asked L % of capacity.
     */
    static double[] levels(List<Standing.Point> curve) {
        int top = (int) Math.floor(curve.getLast().arrivedPct());
        double[] levels = new double[top + 1];
        int next = 0;
        for (int level = 0; level <= top; level++) {
            while (curve.get(next).arrivedPct() < level) {
                next++;
            }
            levels[level] = curve.get(next).allocatedPct();
        }
        return levels;
    }
}
