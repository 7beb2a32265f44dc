package io.elasticgpu.e2e.kueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kueue admitting GPU jobs that the extender then places card by card, on the real kube-apiserver, kube-scheduler
 * (with {@code src/test/resources/scheduler/extender.yaml}) and kube-controller-manager (the Job controller), Kueue
 * v0.17 as its own process ({@link KueueProcess}) and kwok playing the nodes (it completes a Job's pods once they
 * run). A ClusterQueue whose one flavor covers {@code elasticgpu.io/gpu-memory} and {@code elasticgpu.io/gpu-core}
 * holds a namespace's LocalQueue to 24,000 MiB and 90 % of a card: three slices of 8,000 MiB and 30 %.
 */
@ExtendWith(ControlPlaneExtension.class)
class KueueE2E {

    private static final Path TEMPLATE = Path.of("src/test/resources/scheduler/extender.yaml");
    private static final String KUEUE = "kueue.x-k8s.io/v1beta2";
    private static final String QUEUE_LABEL = "kueue.x-k8s.io/queue-name";
    private static final Duration WAIT = Duration.ofSeconds(120);

    private static ControlPlane controlPlane;
    private static EgpuProcess extender;
    private static KueueProcess kueue;

    @BeforeAll
    static void start(ControlPlane cp) throws IOException {
        controlPlane = cp;
        extender = EgpuProcess.start(
                "scheduler",
                List.of("--kubeconfig", cp.kubeconfig().toString(), "--log-level", "info"),
                cp.workDir().resolve("logs").resolve("extender-kueue-" + System.nanoTime() + ".log"));
        controlPlane.restartScheduler(TEMPLATE, extender.url());
        kueue = KueueProcess.start(cp);
    }

    @AfterAll
    static void stop() {
        if (kueue != null) {
            kueue.close();
        }
        controlPlane.restartScheduler(null);
        if (extender != null) {
            extender.close();
        }
    }

    @Test
    void aJobOfSlicesIsAdmittedWithinItsQueuesQuotaAndEachPodIsPlacedOnACard(TestCluster cluster) {
        List<String> nodes = cluster.createGpuNodes(List.of(GpuNodeSpec.of("kq", 2, "Tesla-T4", 16_384)));
        String queue = queues(cluster, "24000", "90");
        createJob(cluster, "train", queue, 3, "8000", "30");

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(succeeded(cluster, "train")).isEqualTo(3));
        List<Pod> pods = podsOf(cluster, "train");
        assertThat(pods).hasSize(3);
        Set<String> cards = new HashSet<>();
        for (Pod p : pods) {
            assertThat(p.getSpec().getNodeName()).isIn(nodes);
            PodGrant.Share share = grantOf(p).getFirst();
            assertThat(share.memoryMib()).isEqualTo(8000);
            cards.add(p.getSpec().getNodeName() + "/" + share.card());
        }
        // two slices of 8,000 MiB fit a card of 16,384: three pods need two cards, and the extender packs them
        assertThat(cards).hasSize(2);
        GenericKubernetesResource workload = workloadOf(cluster, "train").orElseThrow();
        assertThat(condition(workload, "QuotaReserved")).contains("True");
        assertThat(condition(workload, "Finished")).contains("True");
    }

    @Test
    void aJobLargerThanTheQuotaGetsNoPodAtAllNotThePartThatWouldFit(TestCluster cluster) {
        cluster.createGpuNodes(List.of(GpuNodeSpec.of("kq", 2, "Tesla-T4", 16_384)));
        String queue = queues(cluster, "24000", "90");
        // 4 x 8,000 = 32,000 MiB > 24,000: three pods would fit the quota, and the cards, but the job is one workload
        createJob(cluster, "too-big", queue, 4, "8000", "20");

        await().atMost(WAIT).untilAsserted(() -> {
            GenericKubernetesResource w = workloadOf(cluster, "too-big").orElseThrow();
            assertThat(condition(w, "QuotaReserved")).contains("False");
            assertThat(conditionMessage(w, "QuotaReserved"))
                    .contains("insufficient")
                    .contains(ResourceNames.GPU_MEMORY);
        });
        // Kueue's verdict stands: the job stays suspended and no pod of it is ever made
        await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(job(cluster, "too-big").getSpec().getSuspend()).isTrue();
            assertThat(podsOf(cluster, "too-big")).isEmpty();
        });
    }

    @Test
    void twoJobsBeyondTheQuotaTogetherRunOneAfterTheOtherEachWhole(TestCluster cluster) {
        cluster.createGpuNodes(List.of(GpuNodeSpec.of("kq", 2, "Tesla-T4", 16_384)));
        String queue = queues(cluster, "24000", "90");
        createJob(cluster, "first", queue, 3, "8000", "30");
        createJob(cluster, "second", queue, 3, "8000", "30");

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(succeeded(cluster, "first")).isEqualTo(3);
            assertThat(succeeded(cluster, "second")).isEqualTo(3);
        });
        GenericKubernetesResource a = workloadOf(cluster, "first").orElseThrow();
        GenericKubernetesResource b = workloadOf(cluster, "second").orElseThrow();
        // whichever was admitted second was admitted once the other had finished and given its quota back
        Instant aReserved = since(a, "QuotaReserved");
        Instant bReserved = since(b, "QuotaReserved");
        GenericKubernetesResource earlier = aReserved.isAfter(bReserved) ? b : a;
        Instant later = aReserved.isAfter(bReserved) ? aReserved : bReserved;
        assertThat(later).isAfterOrEqualTo(since(earlier, "Finished"));
        for (String job : List.of("first", "second")) {
            for (Pod p : podsOf(cluster, job)) {
                assertThat(grantOf(p).getFirst().memoryMib()).isEqualTo(8000);
            }
        }
    }

    // ---- helpers ----

    /** A ResourceFlavor, a ClusterQueue of {@code memory} MiB and {@code core} % and the namespace's LocalQueue. */
    private static String queues(TestCluster cluster, String memory, String core) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String flavor = "gpu-" + ns;
        client.resource(kueueObject("ResourceFlavor", flavor, null, Map.of())).create();
        client.resource(kueueObject(
                        "ClusterQueue",
                        ns,
                        null,
                        Map.of(
                                "namespaceSelector",
                                Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", ns)),
                                "resourceGroups",
                                List.of(Map.of(
                                        "coveredResources",
                                        List.of(ResourceNames.GPU_MEMORY, ResourceNames.GPU_CORE),
                                        "flavors",
                                        List.of(Map.of(
                                                "name",
                                                flavor,
                                                "resources",
                                                List.of(
                                                        Map.of(
                                                                "name",
                                                                ResourceNames.GPU_MEMORY,
                                                                "nominalQuota",
                                                                memory),
                                                        Map.of(
                                                                "name",
                                                                ResourceNames.GPU_CORE,
                                                                "nominalQuota",
                                                                core)))))))))
                .create();
        client.resource(kueueObject("LocalQueue", "team", ns, Map.of("clusterQueue", ns)))
                .create();
        await().atMost(WAIT).until(() -> {
            GenericKubernetesResource cq = client.genericKubernetesResources(KUEUE, "ClusterQueue")
                    .withName(ns)
                    .get();
            return cq != null && condition(cq, "Active").filter("True"::equals).isPresent();
        });
        return "team";
    }

    private static GenericKubernetesResource kueueObject(
            String kind, String name, String namespace, Map<String, Object> spec) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(KUEUE);
        r.setKind(kind);
        r.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .build());
        r.setAdditionalProperty("spec", spec);
        return r;
    }

    /** A suspended Job of {@code pods} pods, each a slice, in {@code queue}: what Kueue's webhook would make of it. */
    private static void createJob(TestCluster cluster, String name, String queue, int pods, String mib, String core) {
        Map<String, Quantity> ask = Map.of(
                ResourceNames.GPU_MEMORY, new Quantity(mib),
                ResourceNames.GPU_CORE, new Quantity(core));
        cluster.client()
                .batch()
                .v1()
                .jobs()
                .inNamespace(cluster.namespace())
                .resource(new JobBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels(QUEUE_LABEL, queue)
                        .endMetadata()
                        .withNewSpec()
                        .withSuspend(true)
                        .withParallelism(pods)
                        .withCompletions(pods)
                        .withNewTemplate()
                        .withNewSpec()
                        .withRestartPolicy("Never")
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.example/train:1")
                        .withNewResources()
                        .withRequests(ask)
                        .withLimits(ask)
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build())
                .create();
    }

    private static Job job(TestCluster cluster, String name) {
        return cluster.client()
                .batch()
                .v1()
                .jobs()
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    private static int succeeded(TestCluster cluster, String name) {
        Integer n = job(cluster, name).getStatus() == null
                ? null
                : job(cluster, name).getStatus().getSucceeded();
        return n == null ? 0 : n;
    }

    private static List<Pod> podsOf(TestCluster cluster, String job) {
        return cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withLabel("job-name", job)
                .list()
                .getItems();
    }

    private static List<PodGrant.Share> grantOf(Pod pod) {
        String json = pod.getMetadata().getAnnotations().get(Annotations.ALLOCATION);
        assertThat(json).as("the allocation of " + pod.getMetadata().getName()).isNotNull();
        return PodGrant.fromJson(json).containers().get("main");
    }

    private static Optional<GenericKubernetesResource> workloadOf(TestCluster cluster, String job) {
        return cluster
                .client()
                .genericKubernetesResources(KUEUE, "Workload")
                .inNamespace(cluster.namespace())
                .list()
                .getItems()
                .stream()
                .filter(w -> w.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> "Job".equals(o.getKind()) && job.equals(o.getName())))
                .findFirst();
    }

    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> conditionOf(GenericKubernetesResource r, String type) {
        Object status = r.getAdditionalProperties().get("status");
        if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
            return Optional.empty();
        }
        return conditions.stream()
                .map(c -> (Map<String, Object>) c)
                .filter(c -> type.equals(c.get("type")))
                .findFirst();
    }

    private static Optional<String> condition(GenericKubernetesResource r, String type) {
        return conditionOf(r, type).map(c -> String.valueOf(c.get("status")));
    }

    private static String conditionMessage(GenericKubernetesResource r, String type) {
        return conditionOf(r, type).map(c -> String.valueOf(c.get("message"))).orElse("");
    }

    private static Instant since(GenericKubernetesResource r, String type) {
        return Instant.parse(String.valueOf(conditionOf(r, type).orElseThrow().get("lastTransitionTime")));
    }
}
