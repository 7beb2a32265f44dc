package io.elasticgpu.e2e.realnode;

import static io.elasticgpu.e2e.realnode.GpuWorkloads.gpuVariables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.elasticgpu.node.discovery.NvmlStub;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MIG end to end on the real node, against the NVML stub ({@code node/src/test/c/nvml_stub.c}, built here): the
 * node agent runs with {@code --backend nvml} on the stub's three H100s, card 0 in whole-card mode, card 1 in MIG mode
 * with a 3g.40gb and a 2g.20gb MIG device, card 2 in MIG mode until its next reset. A pod asking
 * {@code nvidia.com/mig-3g.40gb} is placed by kube-scheduler, admitted by kubelet through the agent's MIG device
 * plugin, started by containerd, and its container is told its MIG device's UUID and nothing else of the card; a
 * share goes through the extender to card 0 only, the inventory saying why the others take none.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeMigE2E {

    private static final Path NODE_MODULE =
            Path.of(System.getProperty("user.dir")).resolveSibling("node");
    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String MIG_3G = "MIG-00000000-0000-4000-8000-00000000a001";
    private static final String CARDS = """
            card GPU-00000000-0000-4000-8000-000000000000 00000000:07:00.0 0 0 0 8192 %1$s
            card GPU-00000000-0000-4000-8000-000000000001 00000000:0F:00.0 1 0 1 8192 %1$s
            card GPU-00000000-0000-4000-8000-000000000002 00000000:47:00.0 2 0 1 8192 %1$s
            mig 1 1 0 4 4 3 3 4096 %2$s
            mig 1 5 0 0 2 2 2 2048 MIG-00000000-0000-4000-8000-00000000a002
            mig 2 2 0 0 4 3 3 4096 MIG-00000000-0000-4000-8000-00000000b001
            migmode 2 1 0
            """.formatted(H100, MIG_3G);

    private static GpuWorkloads gpus;

    @BeforeAll
    static void startElasticGpu(ControlPlane controlPlane, RealNode node) throws Exception {
        Path dir = Files.createDirectories(controlPlane.workDir().resolve("nvml-stub"));
        Path library = NvmlStub.buildInto(dir);
        Path config = Files.writeString(dir.resolve("nvml.conf"), CARDS);
        gpus = GpuWorkloads.start(
                controlPlane,
                node,
                RealNodeAgent.Api.DEVICE_PLUGIN,
                new RealNodeAgent.Cards.Nvml(library, Map.of("NVML_STUB_CONFIG", config.toString())),
                List.of());
        try (KubernetesClient client = controlPlane.newClient()) {
            await().atMost(RealNodePods.WAIT).until(() -> {
                Map<String, Quantity> allocatable =
                        client.nodes().withName(node.name()).get().getStatus().getAllocatable();
                return count(allocatable, ResourceNames.NVIDIA_MIG_PREFIX + "3g.40gb") == 1
                        && count(allocatable, ResourceNames.NVIDIA_MIG_PREFIX + "2g.20gb") == 1
                        && count(allocatable, ResourceNames.GPU) == 1
                        && count(allocatable, ResourceNames.GPU_MEMORY) == 8192 / GpuWorkloads.MEMORY_BLOCK_MIB;
            });
        }
    }

    private static long count(Map<String, Quantity> allocatable, String resource) {
        Quantity q = allocatable.get(resource);
        return q == null ? -1 : q.getNumericalAmount().longValue();
    }

    @AfterAll
    static void stopElasticGpu() {
        if (gpus != null) {
            gpus.close();
        }
    }

    @Test
    void aPodAskingAMigProfileRunsOnItsMigDeviceAndIsToldOnlyItsUuid(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        pods.create(pods.reporting("mig", Map.of(ResourceNames.NVIDIA_MIG_PREFIX + "3g.40gb", "1"))
                .build());

        ContainerReport report = pods.report("mig", "main");

        assertThat(gpuVariables(report))
                .isEqualTo(Map.of(
                        "NVIDIA_VISIBLE_DEVICES", MIG_3G,
                        "ELASTICGPU_CARD_INDEX", "1",
                        "ELASTICGPU_MIG_PROFILE", "3g.40gb"));
        assertThat(report.deviceList()).containsExactly(MIG_3G);
    }

    @Test
    void aShareGoesToTheCardInWholeCardModeAndTheInventorySaysWhyTheOthersTakeNone(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        RealNodePods pods = new RealNodePods(client, cluster.namespace(), node);
        // 128 blocks × 16 MiB = 2048 MiB and 20 % of one card
        pods.create(pods.reporting("share", Map.of(ResourceNames.GPU_MEMORY, "128", ResourceNames.GPU_CORE, "20"))
                .build());

        List<Share> shares = GpuWorkloads.allocated(client, cluster.namespace(), "share")
                .containers()
                .get("main");
        assertThat(shares).extracting(Share::card).containsExactly(0);
        pods.report("share", "main");
        NodeInventory inventory = NodeInventory.fromJson(client.nodes()
                .withName(node.name())
                .get()
                .getMetadata()
                .getAnnotations()
                .get(Annotations.INVENTORY));
        assertThat(inventory.cards()).extracting(NodeInventory.Card::healthy).containsExactly(true, false, false);
        assertThat(inventory.cards().get(1).reason())
                .isEqualTo("MIG mode is on (MIG devices 3g.40gb, 2g.20gb); it is not served whole or in shares");
        assertThat(inventory.cards().get(1).mig().devices())
                .extracting(NodeInventory.MigDevice::uuid)
                .containsExactly(MIG_3G, "MIG-00000000-0000-4000-8000-00000000a002");
        assertThat(inventory.cards().get(2).reason())
                .startsWith("MIG mode is on and becomes off at the card's next reset");
    }
}
