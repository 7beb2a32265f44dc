package io.elasticgpu.scheduler.extender;

import static io.elasticgpu.scheduler.K8s.allocated;
import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.claim;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.draPod;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.requeue.Requeue;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The filter as shipped: it passes only the node the policy ranks best and holds the pod's cards there at once,
 * so the next pod is decided against it although kube-scheduler has not bound the first yet (its binds run
 * asynchronously, after the next pods' filters).
 */
class DecidingFilterTest {

    private static final Duration HOLD = Duration.ofSeconds(30);

    private final InMemoryClusterApi api = new InMemoryClusterApi();
    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final AtomicLong clock = new AtomicLong();
    private final HttpClient http = HttpClient.newHttpClient();
    private final Pod first =
            pod("ns", "first", "uid-1", container("main", Map.of("elasticgpu.io/gpu-memory", "10000")));
    private final Pod second =
            pod("ns", "second", "uid-2", container("main", Map.of("elasticgpu.io/gpu-memory", "10000")));
    private ExtenderServer server;

    @BeforeEach
    void start() {
        api.addNode(node("b", 1, 16_384, 0));
        api.addNode(node("a", 1, 16_384, 0));
        api.addPod(first);
        api.addPod(second);
        api.feed(cache);
        Binder binder = new Binder(
                api, cache, BinpackPolicy::new, PodAsks.Units.DEFAULT, InstantSource.system(), Duration.ofSeconds(60));
        ExtenderMetrics metrics = new ExtenderMetrics(cache, binder);
        Requeue requeue = new Requeue(api, InstantSource.system(), Requeue.WINDOW, Duration.ZERO);
        Verbs verbs = new Verbs(
                cache,
                new Decisions(BinpackPolicy::new),
                binder,
                PodAsks.Units.DEFAULT,
                metrics,
                () -> true,
                requeue,
                new Verbs.Deciding(true, HOLD, clock::get));
        server = ExtenderServer.start(
                ExtenderConfig.builder().withListen("127.0.0.1:0").build(), verbs, metrics, () -> true);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private List<String> filter(Pod pod) throws Exception {
        return filter(pod, List.of("b", "a"));
    }

    private List<String> filter(Pod pod, List<String> nodes) throws Exception {
        String json = ExtenderServer.JSON.writeValueAsString(Map.of("Pod", pod, "NodeNames", nodes));
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/filter"))
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> passed = new ArrayList<>();
        ExtenderServer.JSON.readTree(r.body()).get("NodeNames").forEach(n -> passed.add(n.asText()));
        return passed;
    }

    private JsonNode bind(Pod pod, String node) throws Exception {
        String json = ExtenderServer.JSON.writeValueAsString(Map.of(
                "PodName",
                pod.getMetadata().getName(),
                "PodNamespace",
                "ns",
                "PodUID",
                pod.getMetadata().getUid(),
                "Node",
                node));
        return ExtenderServer.JSON.readTree(http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/bind"))
                                .POST(HttpRequest.BodyPublishers.ofString(json))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
    }

    @Test
    void theFilterPassesOnlyTheBestNodeTheFirstByNameOnATie() throws Exception {
        assertThat(filter(first)).containsExactly("a");
    }

    @Test
    void theNextPodIsDecidedAgainstTheFirstBeforeItIsBoundAndBothBindWhereDecided() throws Exception {
        assertThat(filter(first)).containsExactly("a");
        assertThat(filter(second)).as("a's card is held for the first pod").containsExactly("b");

        assertThat(bind(second, "b").has("Error")).isFalse();
        assertThat(bind(first, "a").has("Error")).isFalse();
        assertThat(PodGrant.fromJson(api.pods().stream()
                                .filter(p -> p.getMetadata().getName().equals("first"))
                                .findFirst()
                                .orElseThrow()
                                .getMetadata()
                                .getAnnotations()
                                .get("elasticgpu.io/allocation"))
                        .node())
                .isEqualTo("a");
    }

    @Test
    void aNodeWhereABoundPodsCardsAreUnknownGetsNoGpuPodAndTheRefusalSaysWhy() throws Exception {
        Pod garbled = new io.fabric8.kubernetes.api.model.PodBuilder(
                        pod("ns", "foreign", "uid-f", container("main", Map.of("elasticgpu.io/gpu-memory", "1000"))))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/allocation", "{\"written\": \"by someone else\"}")
                .endMetadata()
                .editSpec()
                .withNodeName("a")
                .endSpec()
                .build();
        cache.upsertPod(garbled);
        assertThat(filter(first))
                .as("a would be first, but its foreign pod's cards are unknown")
                .containsExactly("b");

        String json = ExtenderServer.JSON.writeValueAsString(Map.of("Pod", first, "NodeNames", List.of("a")));
        String body = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/filter"))
                                .POST(HttpRequest.BodyPublishers.ofString(json))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(ExtenderServer.JSON
                        .readTree(body)
                        .get("FailedNodes")
                        .get("a")
                        .asText())
                .isEqualTo(Verbs.UNKNOWN_HOLDER);
    }

    @Test
    void aPodDecidedAgainLetsGoOfItsOwnHoldFirst() throws Exception {
        assertThat(filter(first)).containsExactly("a");
        assertThat(filter(first)).containsExactly("a");
        assertThat(cache.snapshot().state("b").usedMemory(0)).isZero();
    }

    @Test
    void theHostStanzasCallWithTheDecidedNodeKeepsTheHoldAndFreesNothing() throws Exception {
        List<String> freed = new java.util.concurrent.CopyOnWriteArrayList<>();
        cache.onFreed(freed::add);
        assertThat(filter(first)).containsExactly("a");
        assertThat(filter(first, List.of("a")))
                .as("the second stanza, sent the node the first passed")
                .containsExactly("a");
        assertThat(freed)
                .as("nothing was let go, so no turned-away pod is told to retry")
                .isEmpty();
        assertThat(cache.snapshot().held("uid-1"))
                .hasValueSatisfying(h -> assertThat(h.allocation().node()).isEqualTo("a"));
        assertThat(filter(second))
                .as("a's card is still held for the first pod")
                .containsExactly("b");
    }

    @Test
    void aPodWithoutGpusGoesToANodeWithoutGpusWhenOneIsACandidate() throws Exception {
        Pod web = pod("ns", "web", "uid-w", container("main", Map.of("cpu", "2")));
        assertThat(filter(web, List.of("a", "cpu-only", "b"))).containsExactly("cpu-only");
    }

    @Test
    void aPodWithoutGpusAmongGpuNodesOnlyGoesWhereThePolicySaysAndIsHeldThere() throws Exception {
        Pod web = pod("ns", "web", "uid-w", container("main", Map.of("cpu", "2")));
        assertThat(filter(web)).containsExactly("a");
        assertThat(cache.snapshot().state("a").freeCpu())
                .as("held at once")
                .isEqualTo(cache.snapshot().state("b").freeCpu() - 2000);
        assertThat(cache.snapshot().held("uid-w"))
                .hasValueSatisfying(h -> assertThat(h.allocation()).isNull());
    }

    @Test
    void aHoldNoBindFollowsLapses() throws Exception {
        assertThat(filter(first)).containsExactly("a");
        clock.addAndGet(HOLD.toNanos() + 1);
        assertThat(filter(second))
                .as("kube-scheduler never bound the first pod")
                .containsExactly("a");
    }

    @Test
    void aDecidedPodsAnswerCarriesNoReasonsAndAPodNoNodeFitsCarriesEach() throws Exception {
        api.addNode(node("full", 1, 8_192, 0));
        api.feed(cache);
        JsonNode decided = filterJson(first, List.of("b", "a", "full", "cpu-only"));
        assertThat(decided.get("NodeNames")).hasSize(1);
        assertThat(decided.path("FailedNodes").size())
                .as("reasons of a decided pod")
                .isZero();
        assertThat(decided.path("FailedAndUnresolvableNodes").size()).isZero();

        JsonNode refused = filterJson(first, List.of("full", "cpu-only"));
        assertThat(refused.get("NodeNames")).isEmpty();
        assertThat(refused.get("FailedNodes").get("full").asText())
                .isEqualTo(Decisions.category(io.elasticgpu.core.snapshot.Reason.INSUFFICIENT_GPU));
        assertThat(refused.get("FailedAndUnresolvableNodes").has("cpu-only")).isTrue();
    }

    @Test
    void aDraPodGoesWhereThePolicyPacksItsClaimAndItsCardIsHeldUntilTheClaimAndThePodAreSeen() throws Exception {
        var held = claim("ns", "held", "uid-h", "4Gi");
        cache.upsertClaim(allocated(held, "b", 0, 4096, "uid-0"));
        var asked = claim("ns", "asked", "uid-c", "4000Mi");
        cache.upsertClaim(asked);
        Pod pod = draPod("ns", "dra", "uid-d", "asked");

        assertThat(filter(pod))
                .as("binpack: beside the claim b's card already holds")
                .containsExactly("b");
        assertThat(cache.snapshot().state("b").usedMemory(0)).as("held at once").isEqualTo(4096 + 4000);

        cache.upsertClaim(allocated(asked, "b", 0, 4000, "uid-d"));
        assertThat(cache.snapshot().state("b").usedMemory(0))
                .as("the claim holds the card now, the hold only the pod")
                .isEqualTo(8096);
        assertThat(cache.snapshot().state("b").freeCpu())
                .as("the pod's CPU still held")
                .isEqualTo(cache.snapshot().state("a").freeCpu() - 1000);

        cache.upsertPod(bound(pod, "b", null));
        assertThat(cache.snapshot().held("uid-d"))
                .as("kube-scheduler bound it: the hold ends")
                .isEmpty();
        assertThat(cache.snapshot().state("b").usedMemory(0)).isEqualTo(8096);
        assertThat(cache.snapshot().state("b").pods()).isEqualTo(1);
    }

    @Test
    void aDraPodOurViewFindsNoRoomForIsLeftToTheAllocatorOnEveryCandidate() throws Exception {
        cache.upsertClaim(claim("ns", "big", "uid-big", "20Gi"));
        assertThat(filter(draPod("ns", "dra", "uid-d", "big"))).containsExactly("b", "a");
        assertThat(cache.snapshot().held("uid-d")).isEmpty();
    }

    private JsonNode filterJson(Pod pod, List<String> nodes) throws Exception {
        String json = ExtenderServer.JSON.writeValueAsString(Map.of("Pod", pod, "NodeNames", nodes));
        return ExtenderServer.JSON.readTree(http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/filter"))
                                .POST(HttpRequest.BodyPublishers.ofString(json))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body());
    }
}
