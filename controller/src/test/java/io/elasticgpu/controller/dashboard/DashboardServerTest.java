package io.elasticgpu.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.controller.view.CardView;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.FreeTflops;
import io.elasticgpu.controller.view.Holder;
import io.elasticgpu.controller.view.NodeView;
import io.elasticgpu.controller.view.PendingPod;
import io.elasticgpu.controller.view.Problem;
import io.elasticgpu.controller.view.Scope;
import io.elasticgpu.controller.view.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dashboard server over real HTTP: the page's files, the view as JSON, the metrics, and what it refuses. */
class DashboardServerTest {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    private final AtomicReference<ClusterView> view = new AtomicReference<>(view(true));
    private final AtomicBoolean ready = new AtomicBoolean(true);
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private DashboardServer server;

    @BeforeEach
    void start() {
        server = DashboardServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                view::get,
                ready::get,
                new ControllerMetrics(view::get, leader::get, () -> 7));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void thePageAndItsFilesAreServedFromTheJar() throws Exception {
        HttpResponse<String> page = get("/ui/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body())
                .contains("<script src=\"app.js\"></script>", "<link rel=\"stylesheet\" href=\"style.css\">");
        assertThat(get("/ui/app.js").body()).contains("/api/v1/cluster");
        assertThat(get("/ui/style.css").headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
    }

    @Test
    void theRootAndUiWithoutASlashRedirectToThePage() throws Exception {
        for (String path : List.of("/", "/ui")) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(302);
            assertThat(r.headers().firstValue("Location")).as(path).hasValue("/ui/");
        }
    }

    @Test
    void nothingElseOnTheClasspathIsReachable() throws Exception {
        for (String path : List.of(
                "/ui/DashboardServer.class",
                "/ui/../dashboard/DashboardServer.class",
                "/ui/%2e%2e/logback.xml",
                "/ui/ui/app.js",
                "/nowhere")) {
            assertThat(get(path).statusCode()).as(path).isEqualTo(404);
        }
    }

    @Test
    void theApiAnswersTheViewAsInspectPrintsItAndFollowsItsChanges() throws Exception {
        JsonNode first = json(get("/api/v1/cluster"));
        assertThat(first.at("/summary/cards").asInt()).isEqualTo(2);
        assertThat(first.at("/nodes/0/cards/1/healthy").asBoolean()).isTrue();
        assertThat(first.at("/nodes/0/cards/0/holders/0/pod").asText()).isEqualTo("train");

        view.set(view(false));
        JsonNode second = json(get("/api/v1/cluster"));
        assertThat(second.at("/nodes/0/cards/1/healthy").asBoolean()).isFalse();
        assertThat(second.at("/summary/unhealthyCards").asInt()).isEqualTo(1);
    }

    @Test
    void theApiCarriesWhatEachCardAndHolderUsesBesideWhatItWasGranted() throws Exception {
        JsonNode card = json(get("/api/v1/cluster")).at("/nodes/0/cards/0");
        assertThat(card.get("memoryGrantedMib").asLong()).isEqualTo(20480);
        assertThat(card.get("memoryUsedMib").asLong()).isEqualTo(22528);
        assertThat(card.get("computeGrantedPercent").asInt()).isEqualTo(100);
        assertThat(card.get("usageMeasured").asText()).isEqualTo("2026-11-27T10:00:00Z");
        assertThat(card.at("/holders/0/memoryMib").asLong()).isEqualTo(20480);
        assertThat(card.at("/holders/0/usedMemoryMib").asLong()).isEqualTo(22000);
        assertThat(card.at("/holders/0/smPercent").asInt()).isEqualTo(87);
        assertThat(get("/ui/app.js").body())
                .contains("card.memoryUsedMib", "h.usedMemoryMib", "h.smPercent", "card.usageMeasured");
    }

    @Test
    void theApiCarriesTheFreeTflopsOfEachCardNodeAndTheClusterAndThePageDrawsThem() throws Exception {
        JsonNode view = json(get("/api/v1/cluster"));
        assertThat(view.at("/nodes/0/cards/0/freeTflops/precision").asText()).isEqualTo("fp32");
        assertThat(view.at("/nodes/0/cards/0/freeTflops/free").decimalValue()).isEqualByComparingTo("0");
        // a model the table lacks: no figure and why, not a zero
        assertThat(view.at("/nodes/0/cards/1/freeTflops/free").isNull()).isTrue();
        assertThat(view.at("/nodes/0/cards/1/freeTflops/unknown").asText()).isEqualTo("unknown model");
        assertThat(view.at("/nodes/0/freeTflops/unknown").asText()).isEqualTo("1 card: unknown model");
        assertThat(view.at("/summary/freeTflops/precision").asText()).isEqualTo("fp32");
        assertThat(get("/ui/app.js").body())
                .contains("card.freeTflops", "node.freeTflops", "s.freeTflops", "data-free-tflops");
    }

    @Test
    void metricsCountTheClusterAndTellWhetherThisReplicaLeads() throws Exception {
        view.set(view(false));
        String metrics = get("/metrics").body();
        assertThat(metrics)
                .contains(
                        "egpu_cluster_cards{health=\"healthy\"} 1",
                        "egpu_cluster_cards{health=\"unhealthy\"} 1",
                        "egpu_cluster_gpu_memory_allocated_mib 20480",
                        "egpu_cluster_gpu_memory_capacity_mib 65536",
                        "egpu_cluster_gpu_compute_allocated_percent 100",
                        "egpu_cluster_pods_pending_gpus 1",
                        "egpu_cluster_view_problems 1",
                        "egpu_controller_leader 1",
                        "egpu_controller_syncs_total 7");

        leader.set(false);
        assertThat(get("/metrics").body()).contains("egpu_controller_leader 0");
    }

    @Test
    void readinessWaitsForTheInformersAndHealthDoesNot() throws Exception {
        ready.set(false);
        assertThat(get("/readyz").statusCode()).isEqualTo(503);
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        ready.set(true);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void writesAreRefusedBecauseTheServerIsReadOnly() throws Exception {
        HttpResponse<String> r = HTTP.send(
                HttpRequest.newBuilder(uri("/api/v1/cluster"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("GET");
        assertThat(r.body()).contains("POST is not allowed here; use GET");
    }

    @Test
    void aTakenPortIsReportedWithTheOptionToChange() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> DashboardServer.start(
                            new InetSocketAddress("127.0.0.1", taken.getLocalPort()),
                            view::get,
                            ready::get,
                            new ControllerMetrics(view::get, leader::get, () -> 0)))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("--http-listen");
        }
    }

    /** One node of two 32 GiB cards: a whole-card pod on card 0, card 1 free (healthy or not), a pod pending. */
    static ClusterView view(boolean secondHealthy) {
        CardView busy = new CardView(
                0,
                "GPU-0",
                "Tesla-V100",
                true,
                null,
                20480,
                22528,
                32768,
                100,
                100,
                "2026-11-27T10:00:00Z",
                new FreeTflops("fp32", new BigDecimal("0.00"), null),
                List.of(new Holder("ml", "train", "main", 20480, 100, "allocated", 22000, 87)));
        CardView free = new CardView(
                1,
                "GPU-1",
                "Tesla-V100",
                secondHealthy,
                secondHealthy ? null : "Xid 79",
                0,
                66,
                32768,
                0,
                100,
                "2026-11-27T10:00:00Z",
                new FreeTflops("fp32", null, "unknown model"),
                List.of());
        FreeTflops nodeFree = new FreeTflops("fp32", new BigDecimal("0.00"), "1 card: unknown model");
        NodeView node = new NodeView("gpu-a", "Tesla-V100", "", List.of(List.of(0, 1)), nodeFree, List.of(busy, free));
        Summary summary = new Summary(1, 2, secondHealthy ? 0 : 1, 20480, 65536, 100, 200, 1, 1, nodeFree);
        return new ClusterView(
                Scope.ALL,
                summary,
                List.of(node),
                List.of(new PendingPod("ml", "waiting")),
                List.of(new Problem("pod ml/broken", "elasticgpu.io/allocation is not JSON")));
    }

    private JsonNode json(HttpResponse<String> response) throws IOException {
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        return new ObjectMapper().readTree(response.body());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
