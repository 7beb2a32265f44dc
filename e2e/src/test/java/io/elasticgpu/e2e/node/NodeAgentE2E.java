package io.elasticgpu.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.KubernetesCluster;
import io.elasticgpu.node.agent.NodeAgent;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node agent between the two real peers it has in production: the kube-apiserver (it publishes the node's cards,
 * reads the pods bound to it, writes what they got) and kubelet's own device manager (the Go kubelet driver).
 */
@ExtendWith(ControlPlaneExtension.class)
class NodeAgentE2E {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static Hardware twoCards() {
        List<Gpu> gpus = List.of(
                new Gpu(
                        0,
                        "GPU-e2e00000-0000-0000-0000-000000000000",
                        "Tesla T4",
                        15_360,
                        "00000000:01:00.0",
                        0,
                        0,
                        false),
                new Gpu(
                        1,
                        "GPU-e2e00001-0000-0000-0000-000000000000",
                        "Tesla T4",
                        15_360,
                        "00000000:02:00.0",
                        1,
                        0,
                        false));
        return new Hardware("570.86.15", gpus, Topology.uniform(2, Link.UNKNOWN));
    }

    private static Pod pod(String name, String node, String resource, String amount, Share planned) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(node, Map.of("main", List.of(planned))).toJson())
                .addToAnnotations(Annotations.ASSUME_TIME, Long.toString(System.nanoTime()))
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ASSUMED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits(resource, new Quantity(amount))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void theAgentPublishesItsCardsAndWritesWhatKubeletGaveIntoThePods(TestCluster cluster) throws Exception {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("agent", 2, "Tesla-T4", 15_360)))
                .getFirst();
        Path driver = switch (DriverBinary.locate()) {
            case DriverBinary.Found(Path path) -> path;
            case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
        };
        Hardware hw = twoCards();
        SimulatedBackend gpus = SimulatedBackend.of(hw);
        try (KubeletDriver kubelet = KubeletDriver.start(driver)) {
            AgentConfig config = AgentConfig.builder(node)
                    .withPluginDir(kubelet.pluginDir())
                    .withPodResourcesSocket(kubelet.podResourcesSocket())
                    .withMemoryBlockMib(64)
                    .withHealth(new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)))
                    .build();
            try (KubernetesCluster api = new KubernetesCluster(cluster.client(), config);
                    NodeAgent agent = NodeAgent.start(config, gpus, api, InstantSource.system())) {
                await().atMost(WAIT).until(agent::registered);
                await().atMost(WAIT).untilAsserted(() -> {
                    var n = cluster.client().nodes().withName(node).get();
                    assertThat(n.getMetadata().getLabels())
                            .containsEntry(NodeLabels.PRODUCT, "Tesla-T4")
                            .containsEntry(NodeLabels.DRIVER, "570.86.15")
                            .containsEntry(NodeLabels.COUNT, "2");
                    assertThat(NodeInventory.fromJson(
                                            n.getMetadata().getAnnotations().get(Annotations.INVENTORY))
                                    .cards())
                            .extracting(NodeInventory.Card::uuid)
                            .containsExactly(
                                    hw.gpus().get(0).uuid(), hw.gpus().get(1).uuid());
                });
                kubelet.await(ResourceNames.GPU_MEMORY, 2 * 15_360 / 64, WAIT);
                kubelet.await(ResourceNames.ALIYUN_GPU_MEM, 2 * 15, WAIT);

                var pods = cluster.client().pods().inNamespace(cluster.namespace());
                Pod slice = pods.resource(pod(
                                "slice",
                                node,
                                ResourceNames.GPU_MEMORY,
                                "64",
                                new Share(1, hw.gpus().get(1).uuid(), 0, 4096)))
                        .create();
                Pod aliyun = pods.resource(pod(
                                "aliyun",
                                node,
                                ResourceNames.ALIYUN_GPU_MEM,
                                "4",
                                new Share(0, hw.gpus().get(0).uuid(), 0, 4096)))
                        .create();

                Admission s = kubelet.admit(slice);
                Admission a = kubelet.admit(aliyun);

                assertThat(s).isInstanceOf(Admission.Admitted.class);
                assertThat(((Admission.Admitted) s).container("main").envs())
                        .containsEntry("ELASTICGPU_CARD_INDEX", "1")
                        .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096");
                assertThat(((Admission.Admitted) a).container("main").envs())
                        .containsEntry("ALIYUN_COM_GPU_MEM_IDX", "0")
                        .containsEntry("ALIYUN_COM_GPU_MEM_CONTAINER", "4");
                await().atMost(WAIT).untilAsserted(() -> {
                    Map<String, String> sa =
                            pods.withName("slice").get().getMetadata().getAnnotations();
                    assertThat(sa).containsEntry(Annotations.PHASE, Annotations.PHASE_ALLOCATED);
                    assertThat(PodGrant.fromJson(sa.get(Annotations.ALLOCATION))
                                    .containers()
                                    .get("main"))
                            .containsExactly(new Share(1, hw.gpus().get(1).uuid(), 0, 4096));
                    assertThat(pods.withName("aliyun").get().getMetadata().getAnnotations())
                            .containsEntry(Annotations.PHASE, Annotations.PHASE_ALLOCATED)
                            .containsEntry(Annotations.ALIYUN_ASSIGNED, "true");
                });

                gpus.inject(new GpuEvent.Xid(0, 79));

                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(NodeInventory.fromJson(cluster.client()
                                                .nodes()
                                                .withName(node)
                                                .get()
                                                .getMetadata()
                                                .getAnnotations()
                                                .get(Annotations.INVENTORY))
                                        .cards()
                                        .getFirst()
                                        .healthy())
                                .isFalse());
            }
        }
    }
}
