package io.elasticgpu.e2e.preemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.Metrics;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Card-aware preemption with the real kube-scheduler: {@code egpu scheduler} as its own process, kube-scheduler
 * configured with {@code src/test/resources/scheduler/extender.yaml} (which names {@code preemptVerb: preempt}), kwok
 * playing the nodes. Pods of priority class {@value #LOW} (0) fill the cards; a pod of class {@value #HIGH} (1,000)
 * that fits nowhere makes kube-scheduler's default preemption choose victims by the node's totals and send them to
 * the extender, whose answer kube-scheduler then evicts. Cards of 16,384 MiB. After each step the node's ledger
 * ({@code egpu-ledger.<node>}) names exactly the pods bound there.
 */
@ExtendWith(ControlPlaneExtension.class)
class PreemptionE2E {

    private static final Path TEMPLATE = Path.of("src/test/resources/scheduler/extender.yaml");
    static final String LOW = "egpu-e2e-low";
    static final String HIGH = "egpu-e2e-high";
    static final String CRITICAL = "egpu-e2e-critical";
    private static final String LEDGERS = "elastic-gpu-system";
    private static final Duration WAIT = Duration.ofSeconds(90);

    private static ControlPlane controlPlane;
    private static EgpuProcess extender;

    @BeforeAll
    static void start(ControlPlane cp) throws IOException {
        controlPlane = cp;
        try (KubernetesClient client = cp.newClient()) {
            for (Map.Entry<String, Integer> c :
                    Map.of(LOW, 0, HIGH, 1_000, CRITICAL, 2_000).entrySet()) {
                client.resource(new PriorityClassBuilder()
                                .withNewMetadata()
                                .withName(c.getKey())
                                .endMetadata()
                                .withValue(c.getValue())
                                .build())
                        .createOr(existing -> existing.update());
            }
        }
        extender = EgpuProcess.start(
                "scheduler",
                List.of("--kubeconfig", cp.kubeconfig().toString(), "--log-level", "info"),
                cp.workDir().resolve("logs").resolve("extender-preemption-" + System.nanoTime() + ".log"));
        controlPlane.restartScheduler(TEMPLATE, extender.url());
    }

    @AfterAll
    static void stop() {
        controlPlane.restartScheduler(null);
        if (extender != null) {
            extender.close();
        }
    }

    @Test
    void aPodAskingMostOfOneCardEvictsOnlyThatCardsSlicesAndBindsThere(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t", 2, "Tesla-T4", 16_384)))
                .getFirst();
        // 3 x 5,000 = 15,000 MiB on each card, 1,384 free on each, 2,768 on the node.
        for (int i = 0; i < 6; i++) {
            create(cluster, "low-" + i, LOW, Map.of("elasticgpu.io/gpu-memory", "5000"), node);
        }
        await().atMost(WAIT).until(() -> running(cluster).size() == 6);
        Map<String, Integer> cards = cards(cluster, node);
        assertThat(new HashSet<>(cards.values())).containsExactlyInAnyOrder(0, 1);
        assertLedgerNamesTheBoundPods(cluster, node);

        // kube-scheduler's totals: 2,768 + 2 x 5,000 >= 12,000, two victims; no two pods of one card leave 12,000
        // there (1,384 + 10,000 = 11,384): the extender answers the three of one card.
        create(cluster, "high", HIGH, Map.of("elasticgpu.io/gpu-memory", "12000"), node);
        await().atMost(WAIT).until(() -> running(cluster).contains("high"));

        Set<String> evicted = new TreeSet<>(cards.keySet());
        evicted.removeAll(names(cluster));
        assertThat(evicted).as("evicted").hasSize(3);
        Set<Integer> freed = evicted.stream().map(cards::get).collect(Collectors.toSet());
        assertThat(freed).as("the cards the victims held").hasSize(1);
        assertThat(card(cluster, "high"))
                .as("the preemptor's card")
                .isEqualTo(freed.iterator().next());
        assertThat(metric("egpu_extender_preemption_nodes_total{outcome=\"victims\"}"))
                .isGreaterThanOrEqualTo(1);
        assertLedgerNamesTheBoundPods(cluster, node);
    }

    @Test
    void aPodNoEvictionCanServeEvictsNothing(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t", 2, "Tesla-T4", 16_384)))
                .getFirst();
        // Each card: 9,000 MiB of a pod above the preemptor (two do not fit one card), and one low pod of 5,000:
        // 2,384 free on each, 4,768 on the node.
        create(cluster, "critical-0", CRITICAL, Map.of("elasticgpu.io/gpu-memory", "9000"), node);
        create(cluster, "critical-1", CRITICAL, Map.of("elasticgpu.io/gpu-memory", "9000"), node);
        await().atMost(WAIT).until(() -> running(cluster).size() == 2);
        create(cluster, "low-0", LOW, Map.of("elasticgpu.io/gpu-memory", "5000"), node);
        create(cluster, "low-1", LOW, Map.of("elasticgpu.io/gpu-memory", "5000"), node);
        await().atMost(WAIT).until(() -> running(cluster).size() == 4);
        assertThat(card(cluster, "critical-0")).isNotEqualTo(card(cluster, "critical-1"));
        double dropped = metric("egpu_extender_preemption_nodes_total{outcome=\"dropped\"}");

        // kube-scheduler's totals would evict one low pod (4,768 + 5,000 >= 8,000), but on either card at most
        // 16,384 - 9,000 = 7,384 can ever be free: the extender drops the node, and kube-scheduler evicts nobody.
        create(cluster, "high", HIGH, Map.of("elasticgpu.io/gpu-memory", "8000"), node);
        await().atMost(WAIT).until(() -> metric("egpu_extender_preemption_nodes_total{outcome=\"dropped\"}") > dropped);
        await().pollDelay(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(10))
                .until(() -> running(cluster).size() == 4);
        assertThat(names(cluster)).hasSize(5);
        assertThat(pod(cluster, "high").getSpec().getNodeName()).isNull();
        assertThat(events(cluster, "Preempted")).as("Preempted events").isEmpty();
        assertLedgerNamesTheBoundPods(cluster, node);
    }

    @Test
    void aWholeCardPreemptorEvictsOnePodAndTakesItsCard(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t", 2, "Tesla-T4", 16_384)))
                .getFirst();
        create(cluster, "whole-0", LOW, Map.of("elasticgpu.io/gpu", "1"), node);
        create(cluster, "whole-1", LOW, Map.of("elasticgpu.io/gpu", "1"), node);
        await().atMost(WAIT).until(() -> running(cluster).size() == 2);
        Map<String, Integer> cards = cards(cluster, node);
        assertLedgerNamesTheBoundPods(cluster, node);

        create(cluster, "high", HIGH, Map.of("elasticgpu.io/gpu", "1"), node);
        await().atMost(WAIT).until(() -> running(cluster).contains("high"));

        Set<String> evicted = new TreeSet<>(cards.keySet());
        evicted.removeAll(names(cluster));
        assertThat(evicted).hasSize(1);
        assertThat(card(cluster, "high")).isEqualTo(cards.get(evicted.iterator().next()));
        assertLedgerNamesTheBoundPods(cluster, node);
    }

    /**
     * What the extender cannot change: kube-scheduler asks it only about nodes where its own dry run evicts at least
     * one pod. A whole-card pod on a node whose two cards each hold a small share fits the node's totals
     * ({@code elasticgpu.io/gpu}: both free), so kube-scheduler finds no victim there, never calls the preempt verb,
     * and evicts nobody: the pod waits.
     */
    @Test
    void aWholeCardPodOnANodeOfSmallSharesGetsNoVictimFromKubeScheduler(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t", 2, "Tesla-T4", 16_384)))
                .getFirst();
        create(cluster, "small-0", LOW, Map.of("elasticgpu.io/gpu-memory", "9000"), node);
        create(cluster, "small-1", LOW, Map.of("elasticgpu.io/gpu-memory", "9000"), node);
        await().atMost(WAIT).until(() -> running(cluster).size() == 2);

        create(cluster, "high", HIGH, Map.of("elasticgpu.io/gpu", "1"), node);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(cluster, "FailedScheduling"))
                        .anySatisfy(
                                m -> assertThat(m).contains("preemption: expected at least one victim pod on node")));
        assertThat(running(cluster)).containsExactlyInAnyOrder("small-0", "small-1");
        assertThat(pod(cluster, "high").getSpec().getNodeName()).isNull();
        assertThat(events(cluster, "Preempted")).isEmpty();
        assertLedgerNamesTheBoundPods(cluster, node);
    }

    @Test
    void aTwoCardPreemptorFreesAnNvlinkPairNotTheTwoYoungestPodsOnTwoIslands(TestCluster cluster) {
        String node = cluster.createGpuNodes(
                        List.of(GpuNodeSpec.of("dgx", 4, "NVIDIA-A100", 16_384).withNvlinkIslands(2, 12)))
                .getFirst();
        for (int i = 0; i < 4; i++) {
            create(cluster, "whole-" + i, LOW, Map.of("elasticgpu.io/gpu", "1"), node);
        }
        await().atMost(WAIT).until(() -> running(cluster).size() == 4);
        // Make the two youngest pods sit on cards 1 and 2, one on each NVLink island (0-1, 2-3): kube-scheduler's
        // totals evict the two youngest.
        for (int card : new int[] {1, 2}) {
            String holder = holderOf(cluster, node, card);
            cluster.client()
                    .pods()
                    .inNamespace(cluster.namespace())
                    .withName(holder)
                    .withGracePeriod(0)
                    .delete();
            await().atMost(WAIT).until(() -> !names(cluster).contains(holder));
            // kwok stamps status.startTime in whole seconds: a second apart, the new pod is the younger
            await().pollDelay(Duration.ofMillis(1_100)).until(() -> true);
            create(cluster, "young-" + card, LOW, Map.of("elasticgpu.io/gpu", "1"), node);
            await().atMost(WAIT).until(() -> running(cluster).contains("young-" + card));
            assertThat(card(cluster, "young-" + card)).isEqualTo(card);
        }
        Map<String, Integer> cards = cards(cluster, node);
        assertLedgerNamesTheBoundPods(cluster, node);

        create(cluster, "high", HIGH, Map.of("elasticgpu.io/gpu", "2"), node);
        await().atMost(WAIT).until(() -> running(cluster).contains("high"));

        Set<String> evicted = new TreeSet<>(cards.keySet());
        evicted.removeAll(names(cluster));
        Set<Integer> freed = evicted.stream().map(cards::get).collect(Collectors.toSet());
        assertThat(freed).as("an NVLink island freed").isIn(Set.of(0, 1), Set.of(2, 3));
        assertThat(new HashSet<>(grant(cluster, "high").cards())).isEqualTo(freed);
        assertLedgerNamesTheBoundPods(cluster, node);
    }

    // ---- helpers ----

    private static void create(
            TestCluster cluster, String name, String priorityClass, Map<String, String> limits, String node) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels("app", name)
                        .endMetadata()
                        .withNewSpec()
                        .withPriorityClassName(priorityClass)
                        .addToNodeSelector("kubernetes.io/hostname", node)
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.example/train:1")
                        .withNewResources()
                        .withLimits(q)
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
    }

    private static List<Pod> pods(TestCluster cluster) {
        return cluster.client().pods().inNamespace(cluster.namespace()).list().getItems();
    }

    private static Pod pod(TestCluster cluster, String name) {
        return cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    private static Set<String> names(TestCluster cluster) {
        return pods(cluster).stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
    }

    private static Set<String> running(TestCluster cluster) {
        return pods(cluster).stream()
                .filter(p -> "Running".equals(p.getStatus().getPhase())
                        && p.getMetadata().getDeletionTimestamp() == null)
                .map(p -> p.getMetadata().getName())
                .collect(Collectors.toSet());
    }

    private static PodGrant grant(TestCluster cluster, String name) {
        return PodGrant.fromJson(
                pod(cluster, name).getMetadata().getAnnotations().get(Annotations.ALLOCATION));
    }

    private static int card(TestCluster cluster, String name) {
        return grant(cluster, name).containers().get("main").getFirst().card();
    }

    /** Each pod bound to {@code node} and the first card it holds. */
    private static Map<String, Integer> cards(TestCluster cluster, String node) {
        Map<String, Integer> out = new HashMap<>();
        for (Pod p : pods(cluster)) {
            if (node.equals(p.getSpec().getNodeName())) {
                out.put(p.getMetadata().getName(), card(cluster, p.getMetadata().getName()));
            }
        }
        return out;
    }

    private static String holderOf(TestCluster cluster, String node, int card) {
        return cards(cluster, node).entrySet().stream()
                .filter(e -> e.getValue() == card)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
    }

    /**
     * The node's ledger names exactly the pods bound there (a bind rewrites it without the pods gone, and the tidying
     * a few seconds after pods leave drops the rest).
     */
    private static void assertLedgerNamesTheBoundPods(TestCluster cluster, String node) {
        await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> {
            Set<String> bound = pods(cluster).stream()
                    .filter(p -> node.equals(p.getSpec().getNodeName()))
                    .map(p -> p.getMetadata().getUid())
                    .collect(Collectors.toSet());
            ConfigMap ledger = cluster.client()
                    .configMaps()
                    .inNamespace(LEDGERS)
                    .withName("egpu-ledger." + node)
                    .get();
            assertThat(ledger).isNotNull();
            assertThat(ledger.getData() == null ? Set.of() : ledger.getData().keySet())
                    .as("the ledger of %s", node)
                    .isEqualTo(bound);
        });
    }

    private static List<String> events(TestCluster cluster, String reason) {
        return cluster.client().v1().events().inNamespace(cluster.namespace()).list().getItems().stream()
                .filter(e -> reason.equals(e.getReason()))
                .map(Event::getMessage)
                .toList();
    }

    private static double metric(String series) {
        return Metrics.sum(Metrics.scrape(extender.url()), series);
    }
}
