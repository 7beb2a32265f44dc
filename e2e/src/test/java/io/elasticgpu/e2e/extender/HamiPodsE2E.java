package io.elasticgpu.e2e.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.KubernetesCluster;
import io.elasticgpu.node.agent.NodeAgent;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pods written for HAMi, unchanged, on the real kube-scheduler with our extender ({@link ExtenderE2E}'s setup) and
 * a node agent admitting them through kubelet's own device manager (the Go kubelet driver, as in NodeAgentE2E).
 */
@ExtendWith(ControlPlaneExtension.class)
class HamiPodsE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long CARD_MIB = 16_384;

    @BeforeAll
    static void startExtender(ControlPlane cp) throws IOException {
        ExtenderE2E.startExtender(cp);
    }

    @AfterAll
    static void stopExtender() {
        ExtenderE2E.stopExtender();
    }

    private static Hardware twoCards() {
        return new Hardware(
                "570.86.15",
                List.of(
                        new Gpu(
                                0,
                                "GPU-hami0000-0000-0000-0000-000000000000",
                                "Tesla T4",
                                CARD_MIB,
                                "00000000:01:00.0",
                                0,
                                0,
                                false),
                        new Gpu(
                                1,
                                "GPU-hami0001-0000-0000-0000-000000000000",
                                "Tesla T4",
                                CARD_MIB,
                                "00000000:02:00.0",
                                1,
                                0,
                                false)),
                Topology.uniform(2, Link.UNKNOWN));
    }

    private static Map<String, String> hami(int cards, int memoryMib, int cores) {
        return Map.of(
                ResourceNames.NVIDIA_GPU,
                "" + cards,
                ResourceNames.HAMI_GPU_MEMORY,
                "" + memoryMib,
                ResourceNames.HAMI_GPU_CORES,
                "" + cores);
    }

    @Test
    void hamiSharesAreScheduledOnDistinctCardsAndGivenHamisEnvironment(TestCluster cluster) throws Exception {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("hami", 2, "Tesla-T4", CARD_MIB)))
                .getFirst();
        Hardware hw = twoCards();
        try (KubeletDriver kubelet = KubeletDriver.start(DriverBinary.requireOrSkip())) {
            AgentConfig config = AgentConfig.builder(node)
                    .withPluginDir(kubelet.pluginDir())
                    .withPodResourcesSocket(kubelet.podResourcesSocket())
                    .withMemoryBlockMib(64)
                    .withHealth(new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)))
                    .build();
            try (KubernetesCluster api = new KubernetesCluster(cluster.client(), config);
                    NodeAgent agent = NodeAgent.start(config, SimulatedBackend.of(hw), api, InstantSource.system())) {
                await().atMost(WAIT).until(agent::registered);
                await().atMost(WAIT)
                        .until(() -> NodeInventory.fromJson(cluster.client()
                                        .nodes()
                                        .withName(node)
                                        .get()
                                        .getMetadata()
                                        .getAnnotations()
                                        .get(Annotations.INVENTORY))
                                .cards()
                                .getFirst()
                                .uuid()
                                .equals(hw.gpus().getFirst().uuid()));
                kubelet.await(ResourceNames.NVIDIA_GPU, 2 * 100, WAIT);

                scheduledOnDistinctCards(cluster, node);
                aLookalikeWaitsForTheirAdmission(cluster, node);
                givenHamisEnvironment(cluster, kubelet, hw);
                aPercentOfMemoryBecomesMiBOfTheCardGiven(cluster, kubelet, node);
            }
        }
    }

    /** Five HAMi pods on two cards: more than the cards, so kube-scheduler does not count nvidia.com/gpu as cards. */
    private static void scheduledOnDistinctCards(TestCluster cluster, String node) {
        ExtenderE2E.create(cluster, "pair", hami(2, 4096, 30), node);
        for (int i = 0; i < 4; i++) {
            ExtenderE2E.create(cluster, "small-" + i, hami(1, 2048, 10), node);
        }
        await().atMost(WAIT).until(() -> ExtenderE2E.running(cluster).size() == 5);

        // 30 % = 300 milli and 4096 MiB on each of two cards
        assertThat(plan(cluster, "pair"))
                .extracting(Share::card, Share::milli, Share::memoryMib)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(0, 300, 4096L),
                        org.assertj.core.groups.Tuple.tuple(1, 300, 4096L));
        for (int i = 0; i < 4; i++) {
            assertThat(plan(cluster, "small-" + i))
                    .singleElement()
                    .satisfies(
                            s -> assertThat(s.milli()).isEqualTo(100),
                            s -> assertThat(s.memoryMib()).isEqualTo(2048));
        }
        assertThat(GpuAudit.of(cluster.client(), List.of(node)).overCommitted()).isEmpty();
    }

    /** kubelet admits them through the agent's Allocate: each container is told its share in HAMi's variables. */
    private static void givenHamisEnvironment(TestCluster cluster, KubeletDriver kubelet, Hardware hw) {
        Map<String, String> pair = admitted(kubelet.admit(ExtenderE2E.pod(cluster, "pair")));
        assertThat(pair)
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "4096m")
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_1", "4096m")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "30");
        assertThat(pair.get("NVIDIA_VISIBLE_DEVICES").split(","))
                .containsExactlyInAnyOrder(
                        hw.gpus().get(0).uuid(), hw.gpus().get(1).uuid());
        for (int i = 0; i < 4; i++) {
            assertThat(admitted(kubelet.admit(ExtenderE2E.pod(cluster, "small-" + i))))
                    .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "2048m")
                    .containsEntry("CUDA_DEVICE_SM_LIMIT", "10")
                    .doesNotContainKey("CUDA_DEVICE_MEMORY_LIMIT_1");
        }
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                ExtenderE2E.pod(cluster, "pair").getMetadata().getAnnotations())
                        .containsEntry(Annotations.PHASE, Annotations.PHASE_ALLOCATED));
    }

    /**
     * A pod asking a share as a percent of memory, created while the small ones wait for kubelet: it asks
     * nvidia.com/gpu: 1 as they do, and kubelet's Allocate names no pod, so the agent could not tell it from them; it
     * is not bound to their node until they are admitted.
     */
    private static void aLookalikeWaitsForTheirAdmission(TestCluster cluster, String node) throws Exception {
        ExtenderE2E.create(
                cluster,
                "percent",
                Map.of(
                        ResourceNames.NVIDIA_GPU,
                        "1",
                        ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE,
                        "25",
                        ResourceNames.HAMI_GPU_CORES,
                        "20"),
                node);
        await().atMost(WAIT)
                .until(() -> ExtenderE2E.failedSchedulingMessages(cluster).stream()
                        .anyMatch(m ->
                                m.contains("waits for kubelet on node %s and asks nvidia.com/gpu: 1 as this pod does"
                                        .formatted(node))));
        assertThat(ExtenderE2E.pod(cluster, "percent").getSpec().getNodeName()).isNull();
        assertThat(ExtenderE2E.metric("egpu_extender_binds_held_total "))
                .as("binds held, counted")
                .isPositive();
    }

    /**
     * Once the small pods are admitted, the percent pod is bound: its percent of memory becomes MiB of the card given.
     * */
    private static void aPercentOfMemoryBecomesMiBOfTheCardGiven(
            TestCluster cluster, KubeletDriver kubelet, String node) {
        await().atMost(WAIT).until(() -> ExtenderE2E.running(cluster).size() == 6);
        assertThat(plan(cluster, "percent"))
                .singleElement()
                .satisfies(
                        s -> assertThat(s.milli()).isEqualTo(200),
                        s -> assertThat(s.memoryMib()).isEqualTo(CARD_MIB / 4));
        assertThat(admitted(kubelet.admit(ExtenderE2E.pod(cluster, "percent"))))
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", CARD_MIB / 4 + "m")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "20");
        assertThat(GpuAudit.of(cluster.client(), List.of(node)).overCommitted()).isEmpty();
    }

    @Test
    void aHamiAskAboveOneCardIsRefusedWithWhatToChange(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("hami-bad", 2, "Tesla-T4", CARD_MIB)))
                .getFirst();
        ExtenderE2E.create(cluster, "greedy", hami(1, 1024, 150), node);
        await().atMost(WAIT)
                .until(() -> ExtenderE2E.failedSchedulingMessages(cluster).stream()
                        .anyMatch(m -> m.contains("container main asks nvidia.com/gpucores: 150; it is percent of one "
                                + "card and at most 100")));
        assertThat(ExtenderE2E.pod(cluster, "greedy").getSpec().getNodeName()).isNull();
    }

    private static List<Share> plan(TestCluster cluster, String pod) {
        String json =
                ExtenderE2E.pod(cluster, pod).getMetadata().getAnnotations().get(Annotations.ALLOCATION);
        return PodGrant.fromJson(json).containers().get("main");
    }

    private static Map<String, String> admitted(Admission admission) {
        assertThat(admission).isInstanceOf(Admission.Admitted.class);
        return ((Admission.Admitted) admission).container("main").envs();
    }
}
