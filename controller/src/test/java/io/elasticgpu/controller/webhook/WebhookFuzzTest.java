package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
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
 * TLS so that the fuzzer needs no trust store, and with isolation by MPS, so that every pod's shares are checked):
 * never a 5xx or a dropped connection, and still serving. The webhook writes nothing; it only reads claims, counted
 * here.
 */
class WebhookFuzzTest {

    private static final String REVIEW = MutatePodsHandlerTest.reviewJson("{\"elasticgpu.io/egpuc-main\": \"slice\"}");
    /** A pod asking a slice, its process count annotated: what the shares check reads. */
    private static final String SHARE_REVIEW = MutatePodsHandlerTest.reviewJson(
            "{\"elasticgpu.io/gpu-processes\": \"2\"}",
            "{\"limits\": {\"elasticgpu.io/gpu-core\": \"30\", \"elasticgpu.io/gpu-memory\": \"4096\","
                    + " \"elasticgpu.io/gpu-count\": \"2\"}}");
    /** A pod naming a claim and annotated: the claim's patch applied, then its shares checked. */
    private static final String CLAIM_SHARE_REVIEW = MutatePodsHandlerTest.reviewJson(
            "{\"elasticgpu.io/egpuc-main\": \"slice\", \"elasticgpu.io/gpu-processes\": \"48\"}",
            "{\"limits\": {\"cpu\": \"1\"}}");

    private static final AtomicInteger READS = new AtomicInteger();
    private static HttpEndpoint server;
    private static URI base;

    @BeforeContainer
    static void start() {
        server = AdmissionWebhook.serve(
                new InetSocketAddress("127.0.0.1", 0),
                null,
                new ShareAdmission(ShareAdmission.Isolation.MPS, PodAsks.Units.DEFAULT),
                namespace -> name -> {
                    READS.incrementAndGet();
                    return "slice".equals(name)
                            ? Optional.of(ClaimMutationTest.claim(Map.of("elasticgpu.io/gpu-memory", "4096")))
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
        return HttpFuzz.bodies(List.of(
                REVIEW, SHARE_REVIEW, CLAIM_SHARE_REVIEW, "{}", "{\"request\":{}}", "{\"request\":{\"object\":[]}}"));
    }

    @Property(tries = 400)
    void noReviewCrashesTheWebhook(@ForAll("bodies") byte[] body) {
        HttpFuzz.answersBelow500AndKeepsServing(base, "POST", "mutate-pods", body);
    }

    @Property(tries = 3)
    void aReviewOverTheLimitIs413(@ForAll("bodies") byte[] body) {
        assertThat(HttpFuzz.status(base, "POST", "mutate-pods", new byte[MutatePodsHandler.MAX_BODY_BYTES + 1]))
                .isEqualTo(413);
    }
}
