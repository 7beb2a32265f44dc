package io.elasticgpu.scheduler.extender;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.http.HttpFuzz;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.requeue.Requeue;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random and mutated requests through the real extender server, to every verb (preempt too): never a 5xx or a
 * dropped connection, never a change to the cluster (no pod bound or evicted, no ledger written, no card taken in the
 * cache), and still serving after.
 */
class ExtenderFuzzTest {

    private static final InMemoryClusterApi API = new InMemoryClusterApi();
    private static final ClusterCache CACHE = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private static final Pod SLICE =
            pod("ns", "p", "uid-p", container("main", Map.of("elasticgpu.io/gpu-memory", "2000")));
    private static ExtenderServer server;
    private static URI base;
    private static String before;
    /** The filter decides and holds, as shipped; the holds lapse on this clock before the state is compared. */
    private static final AtomicLong CLOCK = new AtomicLong();

    private static final Duration HOLD = Duration.ofSeconds(30);

    @BeforeContainer
    static void start() throws Exception {
        API.addNode(node("small", 1, 16_384, 0));
        API.addNode(node("big", 2, 81_920, 0));
        API.addPod(SLICE);
        API.feed(CACHE);
        Binder binder = new Binder(
                API, CACHE, BinpackPolicy::new, PodAsks.Units.DEFAULT, InstantSource.system(), Duration.ofSeconds(60));
        ExtenderMetrics metrics = new ExtenderMetrics(CACHE, binder);
        Requeue requeue = new Requeue(API, InstantSource.system(), Requeue.WINDOW, Duration.ZERO);
        Verbs verbs = new Verbs(
                CACHE,
                new Decisions(BinpackPolicy::new),
                binder,
                PodAsks.Units.DEFAULT,
                metrics,
                () -> true,
                requeue,
                new Verbs.Deciding(true, HOLD, CLOCK::get));
        CacheDebug debug =
                new CacheDebug(CACHE, p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1, java.util.Optional.empty());
        server = ExtenderServer.start(
                ExtenderConfig.builder().withListen("127.0.0.1:0").build(), verbs, metrics, () -> true, debug);
        base = URI.create("http://127.0.0.1:" + server.port() + "/");
        before = state();
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    /**
     * Everything a request could change: the pods as the API holds them, both ledgers, the cache's cards once the
     * holds of valid filters have lapsed.
     */
    private static String state() {
        CACHE.expireHolds(CLOCK.addAndGet(HOLD.toNanos() + 1));
        return API.pods() + "|" + API.ledger("small") + API.ledger("big") + "|"
                + CACHE.snapshot().states();
    }

    @Provide
    Arbitrary<String> verbs() {
        return Arbitraries.of("filter", "prioritize", "preempt", "bind");
    }

    @Provide
    Arbitrary<byte[]> bodies() throws Exception {
        String byNames =
                ExtenderServer.JSON.writeValueAsString(Map.of("Pod", SLICE, "NodeNames", List.of("small", "big")));
        String byNodes = ExtenderServer.JSON.writeValueAsString(Map.of(
                "Pod",
                SLICE,
                "Nodes",
                new NodeListBuilder().withItems(node("small", 1, 16_384, 0)).build()));
        // Binds name a node that does not exist, so that no mutation of them can be a valid bind.
        String bind = "{\"PodName\":\"p\",\"PodNamespace\":\"ns\",\"PodUID\":\"uid-p\",\"Node\":\"gone\"}";
        // Preempt requests as kube-scheduler sends them, victims by uid or as whole pods: the verb only answers,
        // whatever it is sent.
        String byUid = ExtenderServer.JSON.writeValueAsString(Map.of(
                "Pod",
                SLICE,
                "NodeNameToMetaVictims",
                Map.of("big", Map.of("Pods", List.of(Map.of("UID", "uid-p")), "NumPDBViolations", 0))));
        String byPods = ExtenderServer.JSON.writeValueAsString(Map.of(
                "Pod",
                SLICE,
                "NodeNameToVictims",
                Map.of("small", Map.of("Pods", List.of(SLICE), "NumPDBViolations", 1))));
        return HttpFuzz.bodies(List.of(
                byNames,
                byNodes,
                bind,
                byUid,
                byPods,
                "{}",
                "null",
                "{\"Pod\":{}}",
                "{\"Pod\":null,\"NodeNames\":[]}",
                "{\"Pod\":null,\"NodeNameToMetaVictims\":{\"\":null}}"));
    }

    @Property(tries = 400)
    void noRequestCrashesTheServerOrChangesTheCluster(@ForAll("verbs") String verb, @ForAll("bodies") byte[] body) {
        int status = HttpFuzz.status(base, "POST", verb, body);
        assertThat(status).as("status of %s with %s", verb, new String(body)).isBetween(200, 499);
        assertThat(state()).isEqualTo(before);
        assertThat(HttpFuzz.status(base, "GET", "healthz", new byte[0])).isEqualTo(200);
    }

    /** {@code /debug/cache} only reads: whatever is sent to it, by any method, is answered and changes nothing. */
    @Property(tries = 100)
    void theCacheDumpAnswersAnyRequestAndChangesNothing(
            @ForAll("methods") String method, @ForAll("queries") String query, @ForAll("bodies") byte[] body) {
        int status = HttpFuzz.status(base, method, "debug/cache" + query, body);
        assertThat(status).as("%s debug/cache%s", method, query).isBetween(200, 499);
        assertThat(state()).isEqualTo(before);
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of("GET", "POST", "PUT", "DELETE");
    }

    @Provide
    Arbitrary<String> queries() {
        return Arbitraries.oneOf(
                Arbitraries.of("", "?compare=false", "?compare=true", "?compare=", "?&&", "?compare=false&x=%ff"),
                Arbitraries.strings().alpha().numeric().ofMaxLength(20).map(q -> "?" + q));
    }

    /** Found by the property above in CI: a container without a name asking GPUs made filter answer 500. */
    @Example
    void aNamelessContainerAskingGpusIsTheCallersMistakeNotA500() {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"uid-p\"},"
                + "\"spec\":{\"containers\":"
                + "[{\"image\":\"x\",\"resources\":{\"limits\":{\"elasticgpu.io/gpu-memory\":\"2000\"}}}]}},"
                + "\"NodeNames\":[\"small\"]}";
        for (String verb : List.of("filter", "prioritize")) {
            assertThat(HttpFuzz.status(base, "POST", verb, body.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                    .as(verb)
                    .isBetween(200, 499);
        }
        assertThat(state()).isEqualTo(before);
    }

    @Property(tries = 5)
    void aBodyOverTheLimitIsRefusedWith413(@ForAll("verbs") String verb) {
        byte[] huge = new byte
                ["bind".equals(verb) ? ExtenderServer.MAX_BIND_BYTES + 1 : ExtenderServer.MAX_REQUEST_BYTES + 1];
        assertThat(HttpFuzz.status(base, "POST", verb, huge)).isEqualTo(413);
        assertThat(state()).isEqualTo(before);
    }
}
