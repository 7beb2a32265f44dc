package io.elasticgpu.bench.cluster;

import io.elasticgpu.localcluster.components.Metrics;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a replay reads from the extender's own Prometheus metrics: its verbs' calls and times. */
final class ExtenderScrape {

    private static final Pattern VERB_SAMPLE =
            Pattern.compile("^egpu_extender_request_seconds_(sum|count)\\{verb=\"([a-z]+)\"} (\\S+)");

    private ExtenderScrape() {}

    /**
     * The extender's counters at one moment: each verb's calls and total seconds, its ledger writes and refusals.
     * The difference from an earlier reading says what happened between the two (a warm-up before a measurement).
     */
    record Counters(Map<String, double[]> verbCallsAndSeconds, long ledgerWrites, long ledgerConflicts) {

        static Counters read(String url) {
            String metrics = Metrics.scrape(url);
            Map<String, double[]> verbs = new TreeMap<>();
            metrics.lines().map(VERB_SAMPLE::matcher).filter(Matcher::find).forEach(m -> {
                double[] v = verbs.computeIfAbsent(m.group(2), k -> new double[2]);
                v["count".equals(m.group(1)) ? 0 : 1] += Double.parseDouble(m.group(3));
            });
            return new Counters(
                    verbs,
                    counter(metrics, "egpu_extender_ledger_writes_total"),
                    counter(metrics, "egpu_extender_ledger_conflicts_total"));
        }

        /** Per verb, its calls since {@code before} and their mean time. */
        Map<String, ReplayResult.VerbTime> verbsSince(Counters before) {
            Map<String, ReplayResult.VerbTime> out = new TreeMap<>();
            verbCallsAndSeconds.forEach((verb, v) -> {
                double[] was = before.verbCallsAndSeconds.getOrDefault(verb, new double[2]);
                double calls = v[0] - was[0];
                out.put(verb, new ReplayResult.VerbTime((long) calls, calls == 0 ? 0 : 1000 * (v[1] - was[1]) / calls));
            });
            return out;
        }

        /** The ledger writes since {@code before}, and of them those refused because another came first. */
        long[] ledgerSince(Counters before) {
            return new long[] {ledgerWrites - before.ledgerWrites, ledgerConflicts - before.ledgerConflicts};
        }
    }

    private static long counter(String metrics, String name) {
        return (long) Metrics.sum(metrics, name + " ");
    }

    /**
     * Filter calls per second over {@code window} from the reading {@code since}, taken once scheduling has settled:
     * how often kube-scheduler retries the pods left pending (each retry is a filter call).
     */
    static double filterCallsPerSecond(String url, Counters since, Duration window) {
        PodStream.sleep(window.toMillis());
        ReplayResult.VerbTime filter = Counters.read(url).verbsSince(since).get("filter");
        return (filter == null ? 0 : filter.calls()) / (double) window.toSeconds();
    }
}
