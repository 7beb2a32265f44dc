package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpFuzz;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random and mutated AdmissionReviews through the webhook's routes ({@link AdmissionWebhook#serve}, here without
 * TLS so that the fuzzer needs no trust store): never a 5xx or a dropped connection, and still serving. The webhook
 * writes nothing; it only reads claims, counted here.
 */
class WebhookFuzzTest {

    private static final String REVIEW = """
            {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
             "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
               "kind": {"group": "", "version": "v1", "kind": "Pod"},
               "resource": {"group": "", "version": "v1", "resource": "pods"},
               "namespace": "team-a", "name": "train", "operation": "CREATE",
               "object": {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "train", "annotations": {"elasticgpu.io/egpuc-main": "slice"}},
                 "spec": {"initContainers": [{"name": "init", "image": "i"}],
                          "containers": [{"name": "main", "image": "trainer:1", "resources": {"limits": {"cpu": "1"}}}]}}}}
            """;
    private static final AtomicInteger READS = new AtomicInteger();
    private static HttpEndpoint server;
    private static URI base;

    @BeforeContainer
    static void start() {
        server = AdmissionWebhook.serve(new InetSocketAddress("127.0.0.1", 0), null, namespace -> name -> {
            READS.incrementAndGet();
            return "slice".equals(name) ? Optional.of(ClaimMutationTest.claim(Map.of("elasticgpu.io/gpu-memory", "4096")))
                    : Optional.empty();
        });
        base = URI.create("http://127.0.0.1:" + server.port() + "/");
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return HttpFuzz.bodies(List.of(REVIEW, "{}", "{\"request\":{}}", "{\"request\":{\"object\":[]}}"));
    }

    @Property(tries = 400)
    void noReviewCrashesTheWebhook(@ForAll("bodies") byte[] body) {
        assertThat(HttpFuzz.status(base, "POST", "mutate-pods", body)).as(new String(body)).isBetween(200, 499);
        assertThat(HttpFuzz.status(base, "GET", "healthz", new byte[0])).isEqualTo(200);
    }

    @Property(tries = 3)
    void aReviewOverTheLimitIs413(@ForAll("bodies") byte[] body) {
        assertThat(HttpFuzz.status(base, "POST", "mutate-pods", new byte[MutatePodsHandler.MAX_BODY_BYTES + 1]))
                .isEqualTo(413);
    }
}
