package io.elasticgpu.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a replay reads from the extender's own Prometheus metrics: its verbs' calls and times. */
final class ExtenderScrape {

    private static final Pattern VERB_SAMPLE =
            Pattern.compile("^egpu_extender_request_seconds_(sum|count)\\{verb=\"([a-z]+)\"} (\\S+)");

    private ExtenderScrape() {
    }

    /** Per verb, its calls so far and their mean time. */
    static Map<String, ReplayResult.VerbTime> verbs(String url) {
        Map<String, double[]> sumCount = new TreeMap<>();
        scrape(url).lines().map(VERB_SAMPLE::matcher).filter(Matcher::find).forEach(m -> {
            double[] v = sumCount.computeIfAbsent(m.group(2), k -> new double[2]);
            v["sum".equals(m.group(1)) ? 0 : 1] += Double.parseDouble(m.group(3));
        });
        Map<String, ReplayResult.VerbTime> verbs = new TreeMap<>();
        sumCount.forEach((verb, v) -> verbs.put(verb, new ReplayResult.VerbTime((long) v[1], v[1] == 0 ? 0 : 1000 * v[0] / v[1])));
        return verbs;
    }

    /** The extender's ledger writes so far, and of them those the API server refused because another came first. */
    static long[] ledgerWritesAndConflicts(String url) {
        String metrics = scrape(url);
        return new long[] {counter(metrics, "egpu_extender_ledger_writes_total"),
                counter(metrics, "egpu_extender_ledger_conflicts_total")};
    }

    private static long counter(String metrics, String name) {
        return metrics.lines().filter(l -> l.startsWith(name + " "))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /**
     * Filter calls per second over {@code window} once scheduling has settled: how often kube-scheduler retries the
     * pods left pending (each retry is a filter call).
     */
    static double filterCallsPerSecond(String url, Duration window) {
        long before = filterCalls(url);
        PodStream.sleep(window.toMillis());
        return (filterCalls(url) - before) / (double) window.toSeconds();
    }

    private static long filterCalls(String url) {
        ReplayResult.VerbTime filter = verbs(url).get("filter");
        return filter == null ? 0 : filter.calls();
    }

    private static String scrape(String url) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the extender's metrics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
