package io.elasticgpu.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.Allocator;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The agent's metrics as Prometheus scrapes them: a real GET of /metrics after the agent's parts changed. */
class MetricsServerTest {

    private static final String UUID0 = "GPU-00000000-aaaa-bbbb-cccc-000000000000";
    private static final Hardware TWO_CARDS = new Hardware(
            "570.86.15",
            List.of(
                    new Gpu(0, UUID0, "Tesla T4", 16_384, "00000000:01:00.0", 0, 0, false),
                    new Gpu(
                            1,
                            "GPU-00000001-aaaa-bbbb-cccc-000000000000",
                            "Tesla T4",
                            16_384,
                            "00000000:02:00.0",
                            1,
                            0,
                            false)),
            Topology.uniform(2, Link.UNKNOWN));

    private final AgentMetrics metrics = new AgentMetrics("gpu-1");
    private final CardHealth health = new CardHealth(2, HealthPolicy.DEFAULT, InstantSource.system());
    private MetricsServer server;

    @BeforeEach
    void start() {
        metrics.watchCards(TWO_CARDS, health);
        server = MetricsServer.start(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), metrics);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void allocateCallsAreCountedAndTimedByResourceAndOutcome() throws Exception {
        Allocator metered = metrics.metered(new Allocator() {
            @Override
            public ContainerGrant allocate(String resource, List<String> ids) {
                if (ids.isEmpty()) {
                    throw new AllocationException("no plan for this container");
                }
                return grant(0, 500, 4096);
            }

            @Override
            public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
                return available;
            }
        });

        metered.allocate("elasticgpu.io/gpu-memory", List.of("a"));
        metered.allocate("elasticgpu.io/gpu-memory", List.of("b"));
        assertThatThrownBy(() -> metered.allocate("elasticgpu.io/gpu-core", List.of()))
                .isInstanceOf(AllocationException.class);

        String text = scrape();
        assertThat(text)
                .contains(
                        "egpu_node_agent_allocate_calls_total{outcome=\"ok\",resource=\"elasticgpu.io/gpu-memory\"} 2",
                        "egpu_node_agent_allocate_calls_total{outcome=\"refused\","
                                + "resource=\"elasticgpu.io/gpu-core\"} 1",
                        "egpu_node_agent_allocate_seconds_count{outcome=\"ok\",resource=\"elasticgpu.io/gpu-memory"
                                + "\"} 2",
                        "egpu_node_agent_allocate_seconds_bucket{outcome=\"refused\","
                                + "resource=\"elasticgpu.io/gpu-core\",le=\"+Inf\"} 1");
    }

    @Test
    void aCardTakenOutOfServiceMovesFromHealthyToUnhealthy() throws Exception {
        assertThat(scrape())
                .contains(
                        "egpu_node_agent_cards{node=\"gpu-1\",state=\"healthy\"} 2",
                        "egpu_node_agent_cards{node=\"gpu-1\",state=\"unhealthy\"} 0");

        health.onEvent(new GpuEvent.Xid(1, 79)); // fell off the bus

        assertThat(scrape())
                .contains(
                        "egpu_node_agent_cards{node=\"gpu-1\",state=\"healthy\"} 1",
                        "egpu_node_agent_cards{node=\"gpu-1\",state=\"unhealthy\"} 1");
    }

    @Test
    void whatEachCardHoldsIsWhatTheLastReconciliationFound() throws Exception {
        ContainerKey a = new ContainerKey("ns", "a", "main");
        ContainerKey b = new ContainerKey("ns", "b", "main");

        metrics.recording(() -> Map.of(a, grant(0, 300, 4096), b, grant(0, 200, 2048)))
                .get();

        assertThat(scrape())
                .contains(
                        "egpu_node_agent_card_memory_allocated_mib{card=\"0\",node=\"gpu-1\",uuid=\"" + UUID0
                                + "\"} 6144.0",
                        "egpu_node_agent_card_core_allocated_percent{card=\"0\",node=\"gpu-1\",uuid=\"" + UUID0
                                + "\"} 50.0",
                        "egpu_node_agent_card_memory_allocated_mib{card=\"1\",node=\"gpu-1\"");
    }

    @Test
    void healthzAnswersOk() throws Exception {
        HttpResponse<String> r = get("/healthz");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
    }

    @Test
    void aPortInUseIsRefusedWithWhatToChange() {
        io.elasticgpu.http.ListenAddress taken = new io.elasticgpu.http.ListenAddress("127.0.0.1", server.port());

        assertThatThrownBy(() -> MetricsServer.start(taken, metrics))
                .hasMessageContaining("cannot listen on 127.0.0.1:")
                .hasMessageContaining("--metrics-listen")
                .hasMessageContaining("--metrics-listen");
    }

    private static ContainerGrant grant(int card, int milli, long memoryMib) {
        return new ContainerGrant(
                new ContainerKey("ns", "p", "main"),
                List.of(new Share(card, UUID0, milli, memoryMib)),
                Family.ELASTIC_GPU,
                "");
    }

    private String scrape() throws IOException, InterruptedException {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        return r.body();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
