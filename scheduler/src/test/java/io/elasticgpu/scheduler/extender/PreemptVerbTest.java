package io.elasticgpu.scheduler.extender;

import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.container;
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
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The preempt verb over real HTTP with the JSON kube-scheduler sends and reads ({@code ExtenderPreemptionArgs},
 * {@code ExtenderPreemptionResult}): node {@code n1} has two cards of 16,384 MiB, each holding three pods of 5,000 MiB
 * at priority 0 ({@code a0..a2} on card 0, {@code b0..b2} on card 1); the preemptor asks 12,000 MiB at priority 100.
 */
class PreemptVerbTest {

    private final InMemoryClusterApi api = new InMemoryClusterApi();
    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final AtomicBoolean synced = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newHttpClient();
    private final Pod preemptor = new PodBuilder(
                    pod("ns", "high", "uid-high", container("main", Map.of("elasticgpu.io/gpu-memory", "12000"))))
            .editSpec()
            .withPriority(100)
            .endSpec()
            .build();
    private ExtenderServer server;

    @BeforeEach
    void start() {
        api.addNode(node("n1", 2, 16_384, 0));
        api.addNode(node("n2", 1, 16_384, 0));
        for (int card = 0; card < 2; card++) {
            for (int i = 0; i < 3; i++) {
                String name = (card == 0 ? "a" : "b") + i;
                Pod p = pod("ns", name, "uid-" + name, container("main", Map.of("elasticgpu.io/gpu-memory", "5000")));
                api.addPod(bound(
                        p, "n1", new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(card, "g", 0, 5_000))))));
            }
        }
        api.addPod(bound(
                pod("ns", "other", "uid-other", container("main", Map.of("elasticgpu.io/gpu-memory", "1000"))),
                "n2",
                new PodGrant("n2", Map.of("main", List.of(new PodGrant.Share(0, "g", 0, 1_000))))));
        api.addPod(preemptor);
        api.feed(cache);
        Binder binder = new Binder(
                api, cache, BinpackPolicy::new, PodAsks.Units.DEFAULT, InstantSource.system(), Duration.ofSeconds(60));
        ExtenderMetrics metrics = new ExtenderMetrics(cache, binder);
        Verbs verbs = new Verbs(
                cache,
                new Decisions(BinpackPolicy::new),
                binder,
                PodAsks.Units.DEFAULT,
                metrics,
                synced::get,
                new Requeue(api, InstantSource.system(), Requeue.WINDOW, Duration.ZERO),
                Verbs.Deciding.OFF);
        server = ExtenderServer.start(
                ExtenderConfig.builder().withListen("127.0.0.1:0").build(), verbs, metrics, synced::get);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> post(Object body) throws Exception {
        String json = body instanceof String s ? s : ExtenderServer.JSON.writeValueAsString(body);
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/preempt"))
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static Map<String, Object> meta(String... uids) {
        List<Map<String, String>> pods = new ArrayList<>();
        for (String uid : uids) {
            pods.add(Map.of("UID", uid));
        }
        return Map.of("Pods", pods, "NumPDBViolations", 0);
    }

    private String state() {
        return api.pods() + "|" + api.ledger("n1") + "|" + cache.snapshot().states();
    }

    @Test
    void theVictimsAreOneCardsThreePodsByUidWhateverKubeSchedulerProposed() throws Exception {
        String before = state();
        // kube-scheduler's dry run frees the node's total with two pods, one on each card.
        HttpResponse<String> r =
                post(Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", meta("uid-a2", "uid-b2"))));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode victims = ExtenderServer.JSON.readTree(r.body()).get("NodeNameToMetaVictims");
        assertThat(victims.get("n1").get("NumPDBViolations").asInt()).isZero();
        List<String> uids = new ArrayList<>();
        victims.get("n1").get("Pods").forEach(p -> uids.add(p.get("UID").asText()));
        // Two pods of one card leave 1,384 + 10,000 = 11,384 MiB there: three are needed. No start times: equals rank
        // by uid, the lowest least important, so {a0, a1, a2} (ranks 0 + 1 + 2) beats {b0, b1, b2} (3 + 4 + 5).
        assertThat(uids).containsExactly("uid-a2", "uid-a1", "uid-a0");
        assertThat(state()).as("the verb only answers").isEqualTo(before);
    }

    @Test
    void victimsSentAsWholePodsAreAnsweredByUid() throws Exception {
        Pod a2 = api.pods().stream()
                .filter(p -> p.getMetadata().getName().equals("a2"))
                .findFirst()
                .orElseThrow();
        HttpResponse<String> r = post(Map.of(
                "Pod",
                preemptor,
                "NodeNameToVictims",
                Map.of("n1", Map.of("Pods", List.of(a2), "NumPDBViolations", 0))));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(ExtenderServer.JSON
                        .readTree(r.body())
                        .get("NodeNameToMetaVictims")
                        .get("n1")
                        .get("Pods"))
                .hasSize(3);
    }

    @Test
    void aNodeWhereNoEvictionServesIsLeftOutOfTheAnswer() throws Exception {
        Pod whole = new PodBuilder(preemptor)
                .editSpec()
                .editFirstContainer()
                .editResources()
                .withLimits(Map.of("elasticgpu.io/gpu", new io.fabric8.kubernetes.api.model.Quantity("2")))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        // n2's one card cannot give two; n1 can, once all six go.
        HttpResponse<String> r = post(
                Map.of("Pod", whole, "NodeNameToMetaVictims", Map.of("n1", meta("uid-a2"), "n2", meta("uid-other"))));
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode victims = ExtenderServer.JSON.readTree(r.body()).get("NodeNameToMetaVictims");
        assertThat(victims.has("n2")).isFalse();
        assertThat(victims.get("n1").get("Pods")).hasSize(6);
    }

    @Test
    void badInputIsA4xxNamingWhatIsWrongAndChangesNothing() throws Exception {
        String before = state();
        Map<Object, String> cases = new java.util.LinkedHashMap<>();
        cases.put(
                Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("ghost", meta("uid-a0"))),
                "404 node ghost: the extender knows no Elastic GPU cards there (no readable elasticgpu.io/inventory)");
        cases.put(
                Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", meta("uid-nobody"))),
                "404 victim pod uid uid-nobody is not a pod the extender counts on node n1");
        cases.put(
                Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", meta("uid-other"))),
                "422 victim pod uid uid-other is on node n2, not on node n1");
        cases.put(
                Map.of("Pod", preemptor),
                "400 the preempt request must give the candidate nodes' victims as \"NodeNameToMetaVictims\" or"
                        + " \"NodeNameToVictims\"");
        cases.put(
                "{\"NodeNameToMetaVictims\":{}}",
                "400 the preempt request must carry \"Pod\" with metadata.name, metadata.uid and a spec");
        cases.put(
                Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", Map.of("Pods", List.of(Map.of())))),
                "400 every victim on node n1 must have a \"UID\"");
        cases.put(
                Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", Map.of("NumPDBViolations", 0))),
                "400 node n1: its victims must be given as \"Pods\"");
        for (Map.Entry<Object, String> c : cases.entrySet()) {
            HttpResponse<String> r = post(c.getKey());
            assertThat(r.statusCode() + " " + r.body()).as(c.getValue()).contains(c.getValue());
        }
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void aPreemptorTheInformerHasNotShownYetIsAnswered() throws Exception {
        // kube-scheduler's own filters refuse a pod before the extender's filter sees it, and preempt at once.
        Pod stranger = new PodBuilder(preemptor)
                .editMetadata()
                .withUid("uid-stranger")
                .withName("stranger")
                .endMetadata()
                .build();
        HttpResponse<String> r =
                post(Map.of("Pod", stranger, "NodeNameToMetaVictims", Map.of("n1", meta("uid-a2", "uid-b2"))));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(ExtenderServer.JSON
                        .readTree(r.body())
                        .get("NodeNameToMetaVictims")
                        .get("n1")
                        .get("Pods"))
                .hasSize(3);
    }

    @Test
    void beforeTheCachesAreReadItAsksToBeCalledAgain() throws Exception {
        synced.set(false);
        HttpResponse<String> r = post(Map.of("Pod", preemptor, "NodeNameToMetaVictims", Map.of("n1", meta("uid-a2"))));
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("the extender is still reading the cluster; try again shortly");
    }
}
