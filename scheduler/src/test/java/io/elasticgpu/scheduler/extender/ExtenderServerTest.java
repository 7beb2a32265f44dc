package io.elasticgpu.scheduler.extender;

import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.requeue.Requeue;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The extender over real HTTP, with the JSON keys kube-scheduler sends and reads. */
class ExtenderServerTest {

    private final InMemoryClusterApi api = new InMemoryClusterApi();
    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final AtomicBoolean synced = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newHttpClient();
    private final Pod slice = pod("ns", "p", "uid-p", container("main", Map.of("elasticgpu.io/gpu-memory", "20000")));
    private ExtenderServer server;
    private Requeue requeue;
    /** What {@code /debug/cache} lists from "the API". */
    private volatile CacheDebug.Lists listed = new CacheDebug.Lists(List.of(), List.of(), List.of());

    @BeforeEach
    void start() {
        server = start(ExtenderConfig.builder().withListen("127.0.0.1:0").build());
    }

    private ExtenderServer start(ExtenderConfig config) {
        api.addNode(node("small", 1, 16_384, 0));
        api.addNode(node("big", 2, 81_920, 0));
        api.addPod(slice);
        api.feed(cache);
        Binder binder = new Binder(
                api, cache, BinpackPolicy::new, PodAsks.Units.DEFAULT, InstantSource.system(), Duration.ofSeconds(60));
        ExtenderMetrics metrics = new ExtenderMetrics(cache, binder);
        requeue = new Requeue(api, InstantSource.system(), Requeue.WINDOW, Duration.ZERO);
        cache.onFreed(requeue::freed);
        Verbs verbs = new Verbs(
                cache,
                new Decisions(BinpackPolicy::new),
                binder,
                PodAsks.Units.DEFAULT,
                metrics,
                synced::get,
                requeue,
                Verbs.Deciding.OFF);
        CacheDebug debug = new CacheDebug(
                cache, p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1, java.util.Optional.of(() -> listed));
        return ExtenderServer.start(config, verbs, metrics, synced::get, debug);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> post(String verb, Object body) throws Exception {
        String json = body instanceof String s ? s : ExtenderServer.JSON.writeValueAsString(body);
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/" + verb))
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A node the API lists and the cache lacks, planted: named; the cache's own belief shown beside it. */
    @Test
    void debugCacheShowsWhatTheCacheBelievesAndNamesWhatAFreshListSaysOtherwise() throws Exception {
        listed = new CacheDebug.Lists(
                List.of(node("small", 1, 16_384, 0), node("big", 2, 81_920, 0), node("late", 1, 16_384, 0)),
                List.of(slice),
                List.of());

        HttpResponse<String> r = get("/debug/cache");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode json = ExtenderServer.JSON.readTree(r.body());
        assertThat(json.get("compared").asBoolean()).isTrue();
        assertThat(json.get("differences")).hasSize(1);
        assertThat(json.get("differences").get(0).asText()).isEqualTo("node late: in the API, not in the cache");
        assertThat(json.at("/cache/nodes").findValuesAsText("name")).containsExactly("big", "small");
        assertThat(json.at("/cache/nodes/0/cards")).hasSize(2);

        JsonNode notCompared =
                ExtenderServer.JSON.readTree(get("/debug/cache?compare=false").body());
        assertThat(notCompared.get("compared").asBoolean()).isFalse();
        assertThat(notCompared.get("why").asText()).isEqualTo("not asked (?compare=false)");
    }

    @Test
    void filterByNodeNamesAnswersWithGoFieldNames() throws Exception {
        HttpResponse<String> r = post("filter", Map.of("Pod", slice, "NodeNames", List.of("small", "big", "cpu-only")));
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode json = ExtenderServer.JSON.readTree(r.body());
        assertThat(json.get("NodeNames")).hasSize(1);
        assertThat(json.get("NodeNames").get(0).asText()).isEqualTo("big");
        assertThat(json.get("FailedNodes").get("small").asText())
                .isEqualTo("Elastic GPU: no card (or set of cards) has the GPU share the pod asks free");
        assertThat(json.get("FailedAndUnresolvableNodes").get("cpu-only").asText())
                .isEqualTo("no Elastic GPU inventory published; run the node agent on the node");
        assertThat(json.get("Error").asText()).isEmpty();
        assertThat(json.has("Nodes")).isFalse();
    }

    @Test
    void filterWithFullNodeObjectsAnswersWithNodeObjects() throws Exception {
        var nodes = new NodeListBuilder()
                .withItems(node("small", 1, 16_384, 0), node("big", 2, 81_920, 0))
                .build();
        JsonNode json = ExtenderServer.JSON.readTree(
                post("filter", Map.of("Pod", slice, "Nodes", nodes)).body());
        assertThat(json.get("Nodes").get("items")).hasSize(1);
        assertThat(json.get("Nodes")
                        .get("items")
                        .get(0)
                        .get("metadata")
                        .get("name")
                        .asText())
                .isEqualTo("big");
        assertThat(json.has("NodeNames")).isFalse();
    }

    @Test
    void impossibleAndMalformedAsksAnswerWithAnError() throws Exception {
        Pod huge = pod("ns", "h", "uid-h", container("main", Map.of("elasticgpu.io/gpu-memory", "100000")));
        JsonNode json = ExtenderServer.JSON.readTree(
                post("filter", Map.of("Pod", huge, "NodeNames", List.of("big"))).body());
        assertThat(json.get("Error").asText())
                .isEqualTo("container main asks 100000 MiB of GPU memory on one card; the largest card in the cluster "
                        + "has 81920 MiB");
        Pod mixed = pod(
                "ns",
                "m",
                "uid-m",
                container("main", Map.of("elasticgpu.io/gpu", "1", "elasticgpu.io/gpu-core", "50")));
        json = ExtenderServer.JSON.readTree(post("filter", Map.of("Pod", mixed, "NodeNames", List.of("big")))
                .body());
        assertThat(json.get("Error").asText())
                .startsWith("container main asks whole cards (elasticgpu.io/gpu: 1) and a slice");
    }

    @Test
    void prioritizeScoresZeroToTen() throws Exception {
        JsonNode json = ExtenderServer.JSON.readTree(
                post("prioritize", Map.of("Pod", slice, "NodeNames", List.of("small", "big")))
                        .body());
        assertThat(json).hasSize(2);
        assertThat(json.get(0).get("Host").asText()).isEqualTo("small");
        assertThat(json.get(0).get("Score").asInt()).isZero();
        assertThat(json.get(1).get("Host").asText()).isEqualTo("big");
        assertThat(json.get(1).get("Score").asInt()).isEqualTo(10);
    }

    @Test
    void bindChoosesCardsAnnotatesAndBinds() throws Exception {
        JsonNode json = ExtenderServer.JSON.readTree(
                post("bind", Map.of("PodName", "p", "PodNamespace", "ns", "PodUID", "uid-p", "Node", "big"))
                        .body());
        assertThat(json.has("Error")).isFalse();
        Pod stored = api.pods().getFirst();
        assertThat(stored.getSpec().getNodeName()).isEqualTo("big");
        assertThat(stored.getMetadata().getAnnotations()).containsKey("elasticgpu.io/allocation");
        json = ExtenderServer.JSON.readTree(
                post("bind", Map.of("PodName", "x", "PodNamespace", "ns", "PodUID", "uid-x", "Node", "big"))
                        .body());
        assertThat(json.get("Error").asText())
                .isEqualTo("pod ns/x (uid uid-x) is not known yet; kube-scheduler will retry");
    }

    @Test
    void aBindBeforeTheInformerShowsThePodUsesThePodItsFilterCallSent() throws Exception {
        Pod early = pod("ns", "early", "uid-early", container("main", Map.of("elasticgpu.io/gpu-memory", "20000")));
        api.addPod(early); // in the API server, not yet in the informer's cache
        assertThat(cache.pod("ns", "early", "uid-early")).isEmpty();
        post("filter", Map.of("Pod", early, "NodeNames", List.of("big")));
        JsonNode json = ExtenderServer.JSON.readTree(
                post("bind", Map.of("PodName", "early", "PodNamespace", "ns", "PodUID", "uid-early", "Node", "big"))
                        .body());
        assertThat(json.has("Error")).as(json.toString()).isFalse();
        Pod stored = api.pods().stream()
                .filter(p -> p.getMetadata().getName().equals("early"))
                .findFirst()
                .orElseThrow();
        assertThat(stored.getSpec().getNodeName()).isEqualTo("big");
        assertThat(stored.getMetadata().getAnnotations()).containsKey("elasticgpu.io/allocation");
    }

    @Test
    void aPodLeavingANodeAfterARejectionAnnotatesTheNodeSoKubeSchedulerRetries() throws Exception {
        Pod holder = bound(
                pod("ns", "holder", "uid-h", container("main", Map.of("elasticgpu.io/gpu", "1"))),
                "small",
                new PodGrant("small", Map.of("main", List.of(new PodGrant.Share(0, "GPU-small-0", 1000, 16_384)))));
        api.addPod(holder);
        api.feed(cache);
        post("filter", Map.of("Pod", slice, "NodeNames", List.of("small", "big")));
        cache.deletePod(holder);
        assertThat(requeue.writeDue()).containsExactly("small");
        assertThat(api.node("small").getMetadata().getAnnotations()).containsKey(Annotations.CAPACITY_FREED);
    }

    @Test
    void malformedRequestsGet400AndWrongMethods405() throws Exception {
        HttpResponse<String> r = post("filter", "{not json");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).startsWith("malformed filter request:");
        assertThat(get("/filter").statusCode()).isEqualTo(405);
    }

    @Test
    void healthReadinessAndMetrics() throws Exception {
        assertThat(get("/healthz").body()).isEqualTo("ok");
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        synced.set(false);
        assertThat(get("/readyz").statusCode()).isEqualTo(503);
        JsonNode json = ExtenderServer.JSON.readTree(post("filter", Map.of("Pod", slice, "NodeNames", List.of("big")))
                .body());
        assertThat(json.get("Error").asText())
                .isEqualTo("the extender is still reading the cluster; try again shortly");
        synced.set(true);
        post("filter", Map.of("Pod", slice, "NodeNames", List.of("small", "big")));
        String metrics = get("/metrics").body();
        assertThat(metrics)
                .contains("egpu_extender_request_seconds_bucket{verb=\"filter\"")
                .contains("egpu_extender_node_failures_total{reason=\"insufficient_gpu\"} 1.0")
                .contains("egpu_card_memory_capacity_mib{card=\"1\",model=\"A100\",node=\"big\"} 81920.0")
                .contains("egpu_cards{state=\"healthy\"} 3.0");
    }

    @Test
    void theMetricsAddressServesMetricsAndProbesAndNoVerb() throws Exception {
        server.close();
        server = start(ExtenderConfig.builder()
                .withListen("127.0.0.1:0")
                .withMetricsListen(java.util.Optional.of("127.0.0.1:0"))
                .build());
        int port = server.metricsPort().orElseThrow();
        assertThat(port).isNotEqualTo(server.port());
        String base = "http://127.0.0.1:" + port;
        assertThat(http.send(
                                HttpRequest.newBuilder(URI.create(base + "/healthz"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body())
                .isEqualTo("ok");
        assertThat(http.send(
                                HttpRequest.newBuilder(URI.create(base + "/readyz"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(200);
        assertThat(http.send(
                                HttpRequest.newBuilder(URI.create(base + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body())
                .contains("egpu_cards{state=\"healthy\"}");
        String bind = ExtenderServer.JSON.writeValueAsString(
                Map.of("PodName", "p", "PodNamespace", "ns", "PodUID", "uid-p", "Node", "big"));
        for (String verb : List.of("/bind", "/filter", "/prioritize")) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create(base + verb))
                            .POST(HttpRequest.BodyPublishers.ofString(bind))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(verb).isEqualTo(404);
        }
        assertThat(api.pods().getFirst().getSpec().getNodeName()).isNull();
        assertThat(post("bind", Map.of("PodName", "p", "PodNamespace", "ns", "PodUID", "uid-p", "Node", "big"))
                        .statusCode())
                .as("the same bind on the verbs address")
                .isEqualTo(200);
        assertThat(api.pods().getFirst().getSpec().getNodeName()).isEqualTo("big");
    }

    @Test
    void noMetricsAddressUnlessConfigured() {
        assertThat(server.metricsPort()).isEmpty();
    }
}
