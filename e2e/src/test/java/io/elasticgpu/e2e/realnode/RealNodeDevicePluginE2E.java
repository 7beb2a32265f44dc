package io.elasticgpu.e2e.realnode;

import static io.elasticgpu.e2e.realnode.GpuWorkloads.CARD_MIB;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.MEMORY_BLOCK_MIB;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.expectedEnvironment;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.gpuVariables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The device-plugin path up to a running container: the real kube-scheduler and our extender place each pod on the
 * real node, its kubelet asks the node agent ({@code egpu node-agent --backend simulated}, four simulated 8 GiB cards)
 * through the device plugin API, containerd starts the container, and the container prints what it was given. What
 * it prints must be what the pod's {@code elasticgpu.io/allocation} says once the agent has written it, and what the
 * agent counts on each card.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeDevicePluginE2E {

    private static GpuWorkloads gpus;
    private static List<NodeInventory.Card> cards;

    @BeforeAll
    static void startElasticGpu(ControlPlane controlPlane, RealNode node) {
        gpus = GpuWorkloads.start(controlPlane, node, RealNodeAgent.Api.DEVICE_PLUGIN, List.of());
        try (KubernetesClient client = controlPlane.newClient()) {
            cards = GpuWorkloads.awaitDevicePlugin(client, node);
        }
    }

    @AfterAll
    static void stopElasticGpu() {
        if (gpus != null) {
            gpus.close();
        }
    }

    @Test
    void aSlicePodsContainerIsToldItsCardAndItsShare(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        // 256 blocks × 16 MiB = 4096 MiB and 30 % of one card
        pods.create(pods.reporting("slice", Map.of(ResourceNames.GPU_MEMORY, "256", ResourceNames.GPU_CORE, "30"))
                .build());

        ContainerReport report = pods.report("slice", "main");
        List<Share> shares = onlyContainer(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "slice"));
        assertThat(shares).singleElement().satisfies(s -> {
            assertThat(s.memoryMib()).isEqualTo(256 * MEMORY_BLOCK_MIB);
            assertThat(s.milli()).isEqualTo(300);
            assertThat(s.uuid()).isEqualTo(cards.get(s.card()).uuid());
        });
        assertThat(gpuVariables(report)).isEqualTo(expectedEnvironment(shares, true, true));
        assertTheAgentCounts(List.of(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "slice")));
    }

    @Test
    void aWholeCardPodsContainerIsToldItsCardWithAllItsMemory(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        pods.create(pods.reporting("whole", Map.of(ResourceNames.GPU, "1")).build());

        ContainerReport report = pods.report("whole", "main");
        List<Share> shares = onlyContainer(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "whole"));
        assertThat(shares)
                .singleElement()
                .satisfies(s -> assertThat(s.memoryMib()).isEqualTo(CARD_MIB));
        assertThat(gpuVariables(report))
                .isEqualTo(expectedEnvironment(shares, true, true))
                .containsEntry("ELASTICGPU_CORE_PERCENT", "100");
        assertTheAgentCounts(List.of(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "whole")));
    }

    @Test
    void aMultiCardPodsContainerIsToldEveryCard(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        pods.create(pods.reporting("pair", Map.of(ResourceNames.GPU, "2")).build());

        ContainerReport report = pods.report("pair", "main");
        List<Share> shares = onlyContainer(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "pair"));
        assertThat(shares).hasSize(2).extracting(Share::card).doesNotHaveDuplicates();
        assertThat(gpuVariables(report)).isEqualTo(expectedEnvironment(shares, true, true));
        assertThat(report.env().get("NVIDIA_VISIBLE_DEVICES").split(",")).hasSize(2);
        // the same cards as the NVIDIA toolkit's volume-mount device list, through kubelet, containerd and runc
        assertThat(report.deviceList())
                .containsExactlyInAnyOrderElementsOf(
                        shares.stream().map(Share::uuid).toList());
        assertTheAgentCounts(List.of(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "pair")));
    }

    @Test
    void aPodWrittenForHamiRunsAsWrittenAndIsToldItsShareInHamisWords(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        // nvidia.com/gpumem is advertised by no node: kubelet admits the pod without it (the agent gives the share)
        pods.create(pods.reporting("hami", Map.of(ResourceNames.NVIDIA_GPU, "1", ResourceNames.HAMI_GPU_MEMORY, "2048"))
                .build());

        ContainerReport report = pods.report("hami", "main");
        List<Share> shares = onlyContainer(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "hami"));
        assertThat(shares)
                .singleElement()
                .satisfies(s -> assertThat(s.memoryMib()).isEqualTo(2048));
        assertThat(gpuVariables(report))
                .isEqualTo(expectedEnvironment(shares, true, true))
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "2048m")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "100");
        assertTheAgentCounts(List.of(GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "hami")));
    }

    @Test
    void aPodUsingAnElasticGpuClaimIsToldTheClaimsShare(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        ElasticGPUCrds.apply(cluster.controlPlane());
        RealNodePods pods = new RealNodePods(client, ns, node);
        try (AdmissionWebhook webhook = AdmissionWebhook.start(
                client,
                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                        .withCertificateLifetime(Duration.ofHours(1))
                        .build())) {
            client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                    .create();
            // 128 blocks × 16 MiB = 2048 MiB, memory only
            client.resource(ElasticGPUClaim.of(
                            ns, "notebook", ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("128"))))
                    .create();
            // The apiserver calls a new webhook configuration a moment after it is written: a new pod each try.
            Pod created = WebhookRollout.createOnceMutated(
                    client,
                    ns,
                    n -> pods.reporting("claimed-" + n, Map.of())
                            .editMetadata()
                            .addToAnnotations("elasticgpu.io/egpuc-main", "notebook")
                            .endMetadata()
                            .build(),
                    WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                    Duration.ofSeconds(30));
            String name = created.getMetadata().getName();

            ContainerReport report = pods.report(name, "main");
            PodGrant allocation = GpuWorkloads.allocated(client, ns, name);
            List<Share> shares = onlyContainer(allocation);
            assertThat(shares)
                    .singleElement()
                    .satisfies(s -> assertThat(s.memoryMib()).isEqualTo(2048));
            assertThat(gpuVariables(report)).isEqualTo(expectedEnvironment(shares, true, false));
        } finally {
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    private static List<Share> onlyContainer(PodGrant allocation) {
        assertThat(allocation.containers()).containsOnlyKeys("main");
        return allocation.containers().get("main");
    }

    /** The agent's per-card account (its metrics, from kubelet's records) is what the pods' allocations hold. */
    private static void assertTheAgentCounts(List<PodGrant> allocations) {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(gpus.agentMemoryByCard()).isEqualTo(GpuWorkloads.memoryByCard(allocations)));
    }
}
