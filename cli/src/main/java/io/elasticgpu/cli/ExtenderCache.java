package io.elasticgpu.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code egpu inspect --extender URL}: asks the extender what its cache believes ({@code GET /debug/cache}, which also
 * compares it with a fresh list from the API) and says it in a few lines: how much it holds, and each difference.
 */
final class ExtenderCache {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The extender lists every node and pod to compare: allow for a large cluster. */
    static final Duration ANSWER = Duration.ofSeconds(60);

    private ExtenderCache() {}

    /**
     * The extender's answer at {@code base} (its verbs' address, e.g. {@code http://127.0.0.1:8888}).
     *
     * @throws IOException when it cannot be asked or does not answer 200 (the message says which)
     */
    static JsonNode fetch(URI base) throws IOException {
        URI uri = base.resolve(base.getPath().endsWith("/") ? "debug/cache" : base.getPath() + "/debug/cache");
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(uri).timeout(ANSWER).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("%s answered %d: %s; is it the extender's verbs' address (--listen)?"
                        .formatted(uri, r.statusCode(), r.body().strip()));
            }
            return JSON.readTree(r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted asking " + uri, e);
        }
    }

    /** The answer in a few lines. Pure. */
    static List<String> summary(JsonNode report) {
        int nodes = 0;
        int cards = 0;
        int holders = 0;
        for (JsonNode n : report.at("/cache/nodes")) {
            nodes++;
            for (JsonNode c : n.get("cards")) {
                cards++;
                holders += c.get("holders").size();
            }
        }
        List<String> out = new ArrayList<>();
        out.add("the extender's cache: %d nodes with cards, %d cards, %d holdings, %d of them assumed (its own binds"
                        .formatted(
                                nodes,
                                cards,
                                holders,
                                report.at("/cache/assumed").size())
                + " and filter decisions, not yet seen in the API)");
        if (!report.get("compared").asBoolean()) {
            out.add("not compared with the API: " + report.get("why").asText());
            return out;
        }
        JsonNode differences = report.get("differences");
        out.add(
                differences.isEmpty()
                        ? "compared with a fresh list from the API: no difference"
                        : "compared with a fresh list from the API: %d difference%s"
                                .formatted(differences.size(), differences.size() == 1 ? "" : "s"));
        differences.forEach(d -> out.add("  " + d.asText()));
        return out;
    }
}
