package io.elasticgpu.localcluster.components;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A process's Prometheus metrics as text ({@code GET URL/metrics}), and the samples of one series in it. */
public final class Metrics {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Metrics() {}

    /** The text {@code baseUrl/metrics} answers (e.g. an {@link EgpuProcess#url()}), within 5 s. */
    public static String scrape(String baseUrl) {
        URI uri = URI.create(baseUrl + "/metrics");
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("%s answered %d: %s".formatted(uri, r.statusCode(), r.body()));
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read %s: %s".formatted(uri, e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + uri, e);
        }
    }

    /**
     * The sum of the samples in {@code text} whose line starts with {@code series}: a name with its labels as
     * exposed ({@code name{a="b"}}), or a name and a space for a series without labels. 0 when there are none.
     */
    public static double sum(String text, String series) {
        return text.lines()
                .filter(l -> l.startsWith(series))
                .mapToDouble(Metrics::value)
                .sum();
    }

    /** The value of one sample line: what follows its last space. */
    public static double value(String sampleLine) {
        return Double.parseDouble(sampleLine.substring(sampleLine.lastIndexOf(' ') + 1));
    }
}
