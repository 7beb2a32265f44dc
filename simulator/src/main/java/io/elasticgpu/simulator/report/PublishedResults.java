package io.elasticgpu.simulator.report;

import io.elasticgpu.simulator.trace.TraceFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The FGD artifact's published allocation ratios at 100 % arrival ({@code workload,policy,n_seeds,alloc_mean,
 * alloc_sd,...}), with the artifact's policy names mapped to ours.
 */
public final class PublishedResults {

    private static final Map<String, String> POLICY_NAMES = Map.of(
            "01-Random",
            "random",
            "02-DotProd",
            "dot-product",
            "03-GpuClustering",
            "gpu-clustering",
            "04-GpuPacking",
            "gpu-packing",
            "05-BestFit",
            "best-fit",
            "06-FGD",
            "fgd");

    /** One published mean and standard deviation. */
    public record Published(double mean, double sd) {}

    private final Map<String, Map<String, Published>> byTrace;

    private PublishedResults(Map<String, Map<String, Published>> byTrace) {
        this.byTrace = byTrace;
    }

    public static PublishedResults read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(file, "no such file; give the FGD artifact's results CSV");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (lines.isEmpty() || !lines.getFirst().startsWith("workload,policy,n_seeds,alloc_mean,alloc_sd")) {
            throw new TraceFormatException(
                    file, "expected a header starting workload,policy,n_seeds,alloc_mean,alloc_sd");
        }
        Map<String, Map<String, Published>> byTrace = new LinkedHashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            String[] cells = lines.get(i).split(",", -1);
            String policy = POLICY_NAMES.get(cells[1]);
            if (cells.length < 5 || policy == null) {
                throw new TraceFormatException(
                        file,
                        i + 1,
                        "policy",
                        "expected one of %s with 5 or more cells, found \"%s\""
                                .formatted(POLICY_NAMES.keySet(), lines.get(i)));
            }
            try {
                byTrace.computeIfAbsent(cells[0], k -> new HashMap<>())
                        .put(policy, new Published(Double.parseDouble(cells[3]), Double.parseDouble(cells[4])));
            } catch (NumberFormatException e) {
                throw new TraceFormatException(
                        file, i + 1, "alloc_mean", "expected numbers, found \"%s\"".formatted(lines.get(i)));
            }
        }
        return new PublishedResults(byTrace);
    }

    /** The published means of one trace by our policy names; empty for a trace the artifact did not run. */
    public Map<String, Double> forTrace(String trace) {
        Map<String, Double> means = new HashMap<>();
        byTrace.getOrDefault(trace, Map.of()).forEach((policy, p) -> means.put(policy, p.mean()));
        return means;
    }

    public Map<String, Published> published(String trace) {
        return Map.copyOf(byTrace.getOrDefault(trace, Map.of()));
    }

    /** Ours beside the published mean at 100 % arrival, for the policies the artifact ran on this trace. */
    public String comparison(String trace, List<PolicyReport> reports) {
        Map<String, Published> published = byTrace.getOrDefault(trace, Map.of());
        StringBuilder out = new StringBuilder(String.format(
                Locale.ROOT,
                "%nagainst the FGD artifact's published allocation at 100%% arrival:%n%-15s %9s %9s %7s%n",
                "policy",
                "ours",
                "published",
                "diff"));
        for (PolicyReport r : reports) {
            Published p = published.get(r.policy());
            if (p != null) {
                double ours = r.allocationAt100().mean();
                out.append(String.format(
                        Locale.ROOT, "%-15s %9.2f %9.2f %+7.2f%n", r.policy(), ours, p.mean(), ours - p.mean()));
            }
        }
        return out.toString();
    }
}
