package io.elasticgpu.e2e.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.Metrics;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The extender with the real kube-scheduler: {@code egpu scheduler} runs as its own process, kube-scheduler is
 * configured with {@code src/test/resources/scheduler/extender.yaml}, kwok plays the GPU nodes' kubelets.
 */
@ExtendWith(ControlPlaneExtension.class)
class ExtenderE2E {

    private static final Path TEMPLATES = Path.of("src/test/resources/scheduler");
    /** The extender's one sentence for every node whose cards lack the pod's share, which kube-scheduler counts. */
    private static final String INSUFFICIENT_GPU =
            "Elastic GPU: no card (or set of cards) has the GPU share the pod asks free";

    private static ControlPlane controlPlane;
    private static EgpuProcess extender;

    @BeforeAll
    static void startExtender(ControlPlane cp) throws IOException {
        controlPlane = cp;
        extender = startExtender(0);
        useExtender("extender.yaml", extender.url());
    }

    @AfterAll
    static void stopExtender() {
        controlPlane.restartScheduler(null);
        if (extender != null) {
            extender.close();
        }
    }

    static EgpuProcess startExtender(int port) {
        return EgpuProcess.launch(
                        "scheduler",
                        List.of("--kubeconfig", controlPlane.kubeconfig().toString()),
                        controlPlane.workDir().resolve("logs").resolve("extender-" + System.nanoTime() + ".log"))
                .port(port)
                .start();
    }

    static void useExtender(String template, String url) throws IOException {
        controlPlane.restartScheduler(TEMPLATES.resolve(template), url);
    }

    // ---- the tests ----

    @Test
    void fiveHundredMixedPodsNeverOverCommitACardAndEveryPodThatFitsIsBound(TestCluster cluster) {
        List<String> nodes = cluster.createGpuNodes(mixedNodes());
        Map<String, Shape> shapes = new LinkedHashMap<>();
        Random random = new Random(500);
        for (int i = 0; i < 500; i++) {
            Shape shape = Shape.random(random);
            shapes.put("p%03d".formatted(i), shape);
            create(cluster, "p%03d".formatted(i), shape.limits(), null);
        }
        settle(cluster, 500, Duration.ofMinutes(5));

        GpuAudit audit = GpuAudit.of(cluster.client(), nodes);
        assertThat(audit.overCommitted()).isEmpty();
        List<Pod> pods = pods(cluster);
        List<Pod> pending =
                pods.stream().filter(p -> p.getSpec().getNodeName() == null).toList();
        System.out.printf(
                "500 mixed pods on 12 nodes (56 cards): %d bound, %d pending, %d cards holding pods%n",
                pods.size() - pending.size(), pending.size(), audit.cardsHolding());
        assertThat(pods.size() - pending.size()).as("pods bound").isGreaterThan(50);
        Set<String> reasons = failedSchedulingMessages(cluster);
        for (Pod p : pending) {
            Shape s = shapes.get(p.getMetadata().getName());
            assertThat(audit.couldFit(s.cards(), s.whole(), s.milli(), s.memoryMib()))
                    .as(
                            "pending pod %s (%s) could fit somewhere",
                            p.getMetadata().getName(), s)
                    .isFalse();
        }
        assertThat(reasons)
                .as("FailedScheduling events carry the extender's reasons")
                .anySatisfy(m -> assertThat(m).contains(INSUFFICIENT_GPU));
    }

    @Test
    void deletingPodsFreesTheirShareForNewPods(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t4", 2, "Tesla-T4", 15_360)))
                .getFirst();
        create(cluster, "a", Map.of("elasticgpu.io/gpu", "1"), node);
        create(cluster, "b", Map.of("elasticgpu.io/gpu", "1"), node);
        await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).size() == 2);
        create(cluster, "c", Map.of("elasticgpu.io/gpu-memory", "1024"), node);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> failedSchedulingMessages(cluster).stream().anyMatch(m -> m.contains(INSUFFICIENT_GPU)));
        cluster.client().pods().inNamespace(cluster.namespace()).withName("a").delete();
        await().atMost(Duration.ofSeconds(90)).until(() -> running(cluster).contains("c"));
        assertThat(GpuAudit.of(cluster.client(), List.of(node)).overCommitted()).isEmpty();
        assertThat(cluster.client().nodes().withName(node).get().getMetadata().getAnnotations())
                .as("the extender nudged kube-scheduler through the node once the card was free")
                .containsKey("elasticgpu.io/capacity-freed");
        // What the extender believes, from its /debug/cache: c on the node, and nothing a fresh list says otherwise.
        JsonNode believed = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> debugCache(extender),
                        r -> r.get("compared").asBoolean()
                                && r.get("differences").isEmpty());
        assertThat(believed.at("/cache/nodes")
                        .valueStream()
                        .filter(n -> n.get("name").asText().equals(node))
                        .flatMap(n -> n.get("cards").valueStream())
                        .flatMap(c -> c.get("holders").valueStream())
                        .map(h -> h.get("name").asText()))
                .containsExactlyInAnyOrder(cluster.namespace() + "/b", cluster.namespace() + "/c");
    }

    /** The extender's {@code GET /debug/cache}. */
    private static JsonNode debugCache(EgpuProcess extender) throws Exception {
        var r = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create(extender.url() + "/debug/cache"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
    }

    /**
     * Issue 13, defect 1: a pod being deleted keeps its card until its containers stop. A finalizer stands in for
     * kubelet's 60 s grace period (kwok deletes at once), so the pod stays Running with a deletionTimestamp for as
     * long as the test needs. The extender, the cluster view ({@code egpu inspect} and the dashboard read the same
     * one) and the ElasticGPU objects all count the card as held, and the new pod binds only once the old one is gone.
     */
    @Test
    void aPodBeingDeletedHoldsItsCardUntilItIsGone(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t4", 1, "Tesla-T4", 15_360)))
                .getFirst();
        KubernetesClient client = cluster.client();
        ElasticGPUCrds.apply(client);
        String finalizer = "e2e.elasticgpu.io/grace-period";
        client.pods()
                .inNamespace(cluster.namespace())
                .resource(new PodBuilder(podOf("old", Map.of("elasticgpu.io/gpu", "1"), node))
                        .editMetadata()
                        .addToFinalizers(finalizer)
                        .endMetadata()
                        .editSpec()
                        .withTerminationGracePeriodSeconds(60L)
                        .endSpec()
                        .build())
                .create();
        await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).contains("old"));
        try (ElasticGPUController controller = new ElasticGPUController(client, Duration.ofSeconds(10))) {
            controller.start();
            await().atMost(Duration.ofSeconds(45)).until(() -> elasticGpusOf(client, "old") == 1);

            client.pods()
                    .inNamespace(cluster.namespace())
                    .withName("old")
                    .withGracePeriod(60)
                    .delete();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> pod(cluster, "old").getMetadata().getDeletionTimestamp() != null);
            create(cluster, "new", Map.of("elasticgpu.io/gpu-memory", "1024"), node);
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(failedSchedulingMessages(cluster))
                            .anySatisfy(m -> assertThat(m).contains(INSUFFICIENT_GPU)));
            assertThat(pod(cluster, "new").getSpec().getNodeName())
                    .as("the new pod waits")
                    .isNull();
            ClusterView view = ClusterView.of(
                    client.nodes().list().getItems(),
                    client.pods().inAnyNamespace().list().getItems());
            assertThat(view.nodes().stream()
                            .filter(n -> n.name().equals(node))
                            .findFirst()
                            .orElseThrow()
                            .cards()
                            .getFirst()
                            .holders())
                    .as("egpu inspect and the dashboard show the card held")
                    .anySatisfy(h -> {
                        assertThat(h.pod()).isEqualTo("old");
                        assertThat(h.phase()).isEqualTo("terminating");
                    });
            assertThat(elasticGpusOf(client, "old"))
                    .as("the ElasticGPU of the terminating pod stays")
                    .isEqualTo(1);

            client.pods()
                    .inNamespace(cluster.namespace())
                    .withName("old")
                    .edit(p -> new PodBuilder(p)
                            .editMetadata()
                            .removeFromFinalizers(finalizer)
                            .endMetadata()
                            .build());
            await().atMost(Duration.ofSeconds(90)).until(() -> running(cluster).contains("new"));
            await().atMost(Duration.ofSeconds(45)).until(() -> elasticGpusOf(client, "old") == 0);
            assertThat(GpuAudit.of(client, List.of(node)).overCommitted()).isEmpty();
        }
    }

    private static long elasticGpusOf(KubernetesClient client, String pod) {
        return client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> g.getSpec().getPodRef() != null
                        && pod.equals(g.getSpec().getPodRef().getName()))
                .count();
    }

    @Test
    void anExtenderKilledMidBurstAndStartedAgainStillNeverOverCommits(TestCluster cluster) {
        List<String> nodes = cluster.createGpuNodes(List.of(
                GpuNodeSpec.of("a", 4, "V100", 32_768),
                GpuNodeSpec.of("b", 4, "V100", 32_768),
                GpuNodeSpec.of("c", 4, "V100", 32_768)));
        Random random = new Random(7);
        for (int i = 0; i < 150; i++) {
            create(
                    cluster,
                    "k%03d".formatted(i),
                    Map.of("elasticgpu.io/gpu-memory", Integer.toString(2048 * (1 + random.nextInt(6)))),
                    null);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).size() >= 10);
        int port = extender.port();
        extender.kill();
        assertThat(GpuAudit.of(cluster.client(), nodes).overCommitted()).isEmpty();
        extender = startExtender(port);
        settle(cluster, 150, Duration.ofMinutes(4));
        GpuAudit audit = GpuAudit.of(cluster.client(), nodes);
        assertThat(audit.overCommitted()).isEmpty();
        assertThat(running(cluster).size()).isGreaterThan(30);
    }

    @Test
    void twoReplicasServingAtOnceNeverOverCommit(TestCluster cluster) throws IOException, InterruptedException {
        List<String> nodes = cluster.createGpuNodes(List.of(
                GpuNodeSpec.of("a", 2, "T4", 15_360),
                GpuNodeSpec.of("b", 2, "T4", 15_360),
                GpuNodeSpec.of("c", 4, "V100", 32_768)));
        try (EgpuProcess second = startExtender(0);
                RoundRobinProxy proxy = new RoundRobinProxy(List.of(extender.url(), second.url()))) {
            useExtender("extender.yaml", proxy.url());
            Random random = new Random(2);
            for (int i = 0; i < 120; i++) {
                create(
                        cluster,
                        "r%03d".formatted(i),
                        Map.of("elasticgpu.io/gpu-memory", Integer.toString(1024 * (1 + random.nextInt(8)))),
                        null);
            }
            settle(cluster, 120, Duration.ofMinutes(4));
            assertThat(GpuAudit.of(cluster.client(), nodes).overCommitted()).isEmpty();
            assertThat(bindsServed(extender)).as("binds by replica 1").isPositive();
            assertThat(bindsServed(second)).as("binds by replica 2").isPositive();
        } finally {
            useExtender("extender.yaml", extender.url());
        }
    }

    @Test
    void aliyunAndVolcanoStylePodsAreScheduledAndAnnotatedInTheirFormats(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t4", 2, "Tesla-T4", 16_384)))
                .getFirst();
        create(cluster, "aliyun", Map.of("aliyun.com/gpu-mem", "4"), node);
        create(cluster, "volcano", Map.of("volcano.sh/gpu-memory", "1024"), node);
        await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).size() == 2);
        Map<String, String> aliyun = pod(cluster, "aliyun").getMetadata().getAnnotations();
        assertThat(aliyun)
                .containsKeys("ALIYUN_COM_GPU_MEM_IDX", "ALIYUN_COM_GPU_MEM_ASSUME_TIME")
                .containsEntry("ALIYUN_COM_GPU_MEM_POD", "4")
                .containsEntry("ALIYUN_COM_GPU_MEM_DEV", "16")
                .containsEntry("ALIYUN_COM_GPU_MEM_ASSIGNED", "false");
        Map<String, String> volcano = pod(cluster, "volcano").getMetadata().getAnnotations();
        assertThat(volcano)
                .containsKeys("volcano.sh/gpu-index", "volcano.sh/predicate-time")
                .containsEntry("volcano.sh/gpu-assigned", "false");
    }

    @Test
    void aFourCardPodOnAnEightCardNodeWithTwoNvlinkIslandsGetsOneIsland(TestCluster cluster) {
        String node = cluster.createGpuNodes(
                        List.of(GpuNodeSpec.of("dgx", 8, "NVIDIA-A100", 81_920).withNvlinkIslands(4, 12)))
                .getFirst();
        create(cluster, "first", Map.of("elasticgpu.io/gpu", "4"), node);
        create(cluster, "second", Map.of("elasticgpu.io/gpu", "4"), node);
        await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).size() == 2);
        Set<Set<Integer>> islands = new HashSet<>();
        for (String name : List.of("first", "second")) {
            PodGrant a = PodGrant.fromJson(
                    pod(cluster, name).getMetadata().getAnnotations().get(Annotations.ALLOCATION));
            Set<Integer> cards = Set.copyOf(a.cards());
            assertThat(cards).as("%s holds one island", name).isIn(Set.of(0, 1, 2, 3), Set.of(4, 5, 6, 7));
            islands.add(cards);
        }
        assertThat(islands).hasSize(2);
    }

    @Test
    void theFullNodeObjectModeSchedulesToo(TestCluster cluster) throws IOException {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t4", 2, "Tesla-T4", 15_360)))
                .getFirst();
        useExtender("extender-full-nodes.yaml", extender.url());
        try {
            create(cluster, "slice", Map.of("elasticgpu.io/gpu-core", "30", "elasticgpu.io/gpu-memory", "2048"), node);
            await().atMost(Duration.ofSeconds(60)).until(() -> running(cluster).contains("slice"));
            assertThat(pod(cluster, "slice").getMetadata().getAnnotations()).containsKey(Annotations.ALLOCATION);
        } finally {
            useExtender("extender.yaml", extender.url());
        }
    }

    // ---- helpers ----

    /** One pod's GPU ask, and the same ask in the audit's terms. */
    record Shape(Map<String, String> limits, int cards, boolean whole, long milli, long memoryMib) {
        static Shape random(Random r) {
            int[] memories = {1024, 2048, 4096, 8192, 12288, 16384, 24576, 40960};
            int[] cores = {10, 20, 25, 50};
            int m = memories[r.nextInt(memories.length)];
            int c = cores[r.nextInt(cores.length)];
            double kind = r.nextDouble();
            if (kind < 0.40) {
                return new Shape(Map.of("elasticgpu.io/gpu-memory", Integer.toString(m)), 1, false, 0, m);
            }
            if (kind < 0.60) {
                return new Shape(Map.of("elasticgpu.io/gpu-core", Integer.toString(c)), 1, false, c * 10L, 0);
            }
            if (kind < 0.75) {
                return new Shape(
                        Map.of(
                                "elasticgpu.io/gpu-memory",
                                Integer.toString(m),
                                "elasticgpu.io/gpu-core",
                                Integer.toString(c)),
                        1,
                        false,
                        c * 10L,
                        m);
            }
            if (kind < 0.95) {
                int n = kind < 0.90 ? 1 : kind < 0.93 ? 2 : 4;
                return new Shape(Map.of("elasticgpu.io/gpu", Integer.toString(n)), n, true, 0, 0);
            }
            return new Shape(
                    Map.of("elasticgpu.io/gpu-memory", "4096", "elasticgpu.io/gpu-count", "2"), 2, false, 0, 4096);
        }
    }

    private static List<GpuNodeSpec> mixedNodes() {
        List<GpuNodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            specs.add(GpuNodeSpec.of("a100-" + i, 8, "NVIDIA-A100", 81_920).withNvlinkIslands(4, 12));
            specs.add(GpuNodeSpec.of("v100-" + i, 4, "Tesla-V100", 32_768).withNvlinkIslands(2, 2));
            specs.add(GpuNodeSpec.of("t4-" + i, 2, "Tesla-T4", 15_360));
        }
        return specs;
    }

    static void create(TestCluster cluster, String name, Map<String, String> limits, String node) {
        cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .resource(podOf(name, limits, node))
                .create();
    }

    private static Pod podOf(String name, Map<String, String> limits, String node) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .withLimits(q)
                .endResources()
                .endContainer()
                .endSpec();
        if (node != null) {
            b.editSpec().addToNodeSelector("kubernetes.io/hostname", node).endSpec();
        }
        return b.build();
    }

    private static List<Pod> pods(TestCluster cluster) {
        return cluster.client().pods().inNamespace(cluster.namespace()).list().getItems();
    }

    static Pod pod(TestCluster cluster, String name) {
        return cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    static Set<String> running(TestCluster cluster) {
        return pods(cluster).stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase()))
                .map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet());
    }

    static Set<String> failedSchedulingMessages(TestCluster cluster) {
        return cluster.client().v1().events().inNamespace(cluster.namespace()).list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason()))
                .map(Event::getMessage)
                .collect(Collectors.toSet());
    }

    /**
     * Waits until every pod is Running or has been found unschedulable, and nothing changed for 10 s: kube-scheduler
     * has tried them all and has nothing left to place.
     */
    private static void settle(TestCluster cluster, int expected, Duration timeout) {
        KubernetesClient client = cluster.client();
        long[] lastChange = {System.nanoTime()};
        String[] last = {""};
        await().atMost(timeout).pollInterval(Duration.ofSeconds(1)).until(() -> {
            List<Pod> pods = pods(cluster);
            Set<String> unschedulable = client.v1().events().inNamespace(cluster.namespace()).list().getItems().stream()
                    .filter(e -> "FailedScheduling".equals(e.getReason()))
                    .map(e -> e.getInvolvedObject().getName())
                    .collect(Collectors.toSet());
            long running = pods.stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase()))
                    .count();
            long waiting = pods.stream()
                    .filter(p -> p.getSpec().getNodeName() == null
                            && unschedulable.contains(p.getMetadata().getName()))
                    .count();
            String now = running + "/" + waiting;
            if (!now.equals(last[0])) {
                last[0] = now;
                lastChange[0] = System.nanoTime();
            }
            return pods.size() == expected
                    && running + waiting == expected
                    && System.nanoTime() - lastChange[0]
                            > Duration.ofSeconds(10).toNanos();
        });
    }

    private static double bindsServed(EgpuProcess replica) {
        return metric(replica, "egpu_extender_decisions_total{result=\"bound\",verb=\"bind\"}");
    }

    /**
     * The started extender's samples of {@code series} (a name with its labels as exposed, or a name and a space),
     * summed. */
    static double metric(String series) {
        return metric(extender, series);
    }

    private static double metric(EgpuProcess replica, String series) {
        return Metrics.sum(Metrics.scrape(replica.url()), series);
    }
}
