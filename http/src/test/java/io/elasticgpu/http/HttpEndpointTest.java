package io.elasticgpu.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpEndpointTest {

    private final AtomicInteger observed = new AtomicInteger();
    private HttpEndpoint endpoint;
    private URI base;

    @BeforeEach
    void start() {
        PrometheusRegistry registry = new PrometheusRegistry();
        Counter.builder().name("fuzz_calls_total").help("h").register(registry).inc();
        endpoint = HttpEndpoint.on(new InetSocketAddress("127.0.0.1", 0))
                .post(
                        "/echo",
                        16,
                        r -> HttpResponse.of("text/plain", r.body()),
                        (start, response) -> observed.incrementAndGet())
                .post(
                        "/reject",
                        1024,
                        r -> {
                            throw new BadRequest(422, "field x: must be positive");
                        },
                        null)
                .post(
                        "/bug",
                        1024,
                        r -> {
                            throw new NullPointerException("oops");
                        },
                        null)
                .health(() -> false, "caches not synced")
                .metrics(registry)
                .start("Change --listen");
        base = URI.create("http://127.0.0.1:" + endpoint.port());
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    private java.net.http.HttpResponse<String> send(String method, String path, String body) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(
                    java.net.http.HttpRequest.newBuilder(base.resolve(path))
                            .method(method, BodyPublishers.ofString(body))
                            .build(),
                    BodyHandlers.ofString());
        }
    }

    @Test
    void aRouteAnswersAndItsObserverSeesTheCall() throws Exception {
        var r = send("POST", "/echo", "hello");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello");
        assertThat(observed).hasValue(1);
    }

    @Test
    void unknownPathsWrongMethodsAndOversizedBodiesGet4xxThatSayWhatToChange() throws Exception {
        var notFound = send("GET", "/nope", "");
        assertThat(notFound.statusCode()).isEqualTo(404);
        assertThat(notFound.body()).contains("/nope", "/echo", "/metrics");
        var wrongMethod = send("GET", "/echo", "");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
        var tooLarge = send("POST", "/echo", "x".repeat(17));
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        assertThat(tooLarge.body()).contains("limit of 16 bytes");
        var rejected = send("POST", "/reject", "{}");
        assertThat(rejected.statusCode()).isEqualTo(422);
        assertThat(rejected.body()).contains("field x: must be positive");
    }

    @Test
    void aBugIsA500AndTheServerKeepsServing() throws Exception {
        assertThat(send("POST", "/bug", "{}").statusCode()).isEqualTo(500);
        assertThat(send("GET", "/healthz", "").statusCode()).isEqualTo(200);
    }

    @Test
    void readinessAndMetricsComeFromTheirSources() throws Exception {
        var ready = send("GET", "/readyz", "");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(ready.body()).contains("caches not synced");
        var metrics = send("GET", "/metrics", "");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("fuzz_calls_total 1.0");
    }

    @Test
    void aMutatedBodyIsStillText() {
        String json = "{\"a\":1,\"b\":\"x\",\"c\":[1]}";
        assertThat(HttpFuzz.mutate(json, 0, 5, "")).isEqualTo("{\"a\":");
        assertThat(HttpFuzz.mutate(json, 2, 0, "zz")).isEqualTo("{\"a\":\"zz\",\"b\":\"x\",\"c\":[1]}");
        assertThat(HttpFuzz.mutate(json, 4, 0, "")).startsWith("[");
        assertThat(HttpFuzz.bodies(List.of(json)).sampleStream().limit(50)).hasSize(50);
    }

    @Test
    void aClosedEndpointNoLongerAnswers() throws IOException {
        endpoint.close();
        assertThat(HttpFuzz.status(base, "GET", "/healthz", new byte[0])).isEqualTo(-1);
    }
}
