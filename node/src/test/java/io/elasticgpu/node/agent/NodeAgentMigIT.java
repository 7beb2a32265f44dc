package io.elasticgpu.node.agent;

import static io.elasticgpu.node.agent.GpuPods.container;
import static io.elasticgpu.node.agent.GpuPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.NvmlStub;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node with MIG cards, as NVML reports it (the NVML stub's MIG functions), before kubelet's own device manager: the
 * agent serves the card in whole-card mode whole and in shares, keeps the other two out of that service with their
 * reasons, and offers the MIG devices of the card in MIG mode by NVIDIA's mixed-strategy names, those of the card
 * whose MIG mode goes off at its next reset unhealthy.
 */
class NodeAgentMigIT {

    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String NODE = """
            card GPU-00000000-0000-4000-8000-000000000000 00000000:07:00.0 0 0 0 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000001 00000000:0F:00.0 1 0 1 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000002 00000000:47:00.0 2 0 1 81559 %1$s
            mig 1 1 0 4 4 3 3 40192 MIG-00000000-0000-4000-8000-00000000a001
            mig 1 5 0 0 2 2 2 20096 MIG-00000000-0000-4000-8000-00000000a002
            mig 2 2 0 0 4 3 3 40192 MIG-00000000-0000-4000-8000-00000000b001
            migmode 2 1 0
            """.formatted(H100);
    private static Path binary;

    private KubeletDriver kubelet;
    private NvmlBackend gpus;
    private NodeAgent agent;

    @BeforeAll
    static void driverBinary() {
        binary = DriverBinary.requireOrSkip();
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        if (gpus != null) {
            gpus.close();
        }
    }

    /** A pod bound with a whole-card plan on {@code card}, as the extender would leave it. */
    private static Pod planned(TestCluster cluster, String name, int card) {
        Share share = new Share(card, "GPU-00000000-0000-4000-8000-00000000000" + card, 1000, 81559);
        Pod p = pod(
                name,
                card + 1,
                List.of(),
                List.of(container("main", Map.of(ResourceNames.GPU, "1"))),
                Map.of("main", List.of(share)));
        cluster.pods.add(p);
        return p;
    }

    private static Pod migPod(String name, int created, String profile) {
        return pod(
                name,
                created,
                List.of(),
                List.of(container("main", Map.of(ResourceNames.NVIDIA_MIG_PREFIX + profile, "1"))),
                Map.of());
    }

    @Test
    void onlyTheCardInWholeCardModeIsServedAndTheOthersArePublishedUnhealthySayingWhy() {
        NvmlStub.configure(NODE);
        kubelet = KubeletDriver.start(binary);
        AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                .withPluginDir(kubelet.pluginDir())
                .withPodResourcesSocket(kubelet.podResourcesSocket())
                .withMemoryBlockMib(1024)
                .build();
        gpus = NvmlBackend.open(NvmlStub.library());
        TestCluster cluster = new TestCluster(config);
        agent = NodeAgent.start(config, gpus, cluster, InstantSource.system());

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(kubelet.capacity().allocatable(ResourceNames.GPU))
                    .as("one of three cards")
                    .isEqualTo(1);
            assertThat(kubelet.capacity().allocatable(ResourceNames.GPU_MEMORY))
                    .as("its 79 blocks of 1 GiB")
                    .isEqualTo(79);
        });
        assertThat(cluster.lastHealth).containsExactly(true, false, false);
        assertThat(cluster.lastReasons[1])
                .isEqualTo("MIG mode is on (MIG devices 3g.40gb, 2g.20gb); it is not served whole or in shares");
        assertThat(cluster.lastReasons[2]).startsWith("MIG mode is on and becomes off at the card's next reset");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(kubelet.capacity().allocatable(ResourceNames.NVIDIA_MIG_PREFIX + "3g.40gb"))
                    .as("card 1's; card 2's leaves MIG mode at its next reset")
                    .isEqualTo(1);
            assertThat(kubelet.capacity().allocatable(ResourceNames.NVIDIA_MIG_PREFIX + "2g.20gb"))
                    .isEqualTo(1);
        });

        Admission onMigDevice = kubelet.admit(migPod("mig", 7, "3g.40gb"));
        assertThat(onMigDevice).isInstanceOf(Admission.Admitted.class);
        assertThat(((Admission.Admitted) onMigDevice).container("main").envs())
                .as("the MIG device's UUID and nothing else of the card")
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "MIG-00000000-0000-4000-8000-00000000a001")
                .containsEntry("ELASTICGPU_CARD_INDEX", "1")
                .containsEntry("ELASTICGPU_MIG_PROFILE", "3g.40gb");
        assertThat(kubelet.admit(migPod("mig-2", 8, "3g.40gb")))
                .as("the other 3g.40gb is on a card leaving MIG mode")
                .isInstanceOf(Admission.Rejected.class);

        Pod onMig = planned(cluster, "on-mig", 1);
        assertThat(kubelet.admit(onMig))
                .as("a plan naming the card in MIG mode: kubelet has no healthy device of it")
                .isInstanceOf(Admission.Rejected.class);
        Admission whole = kubelet.admit(planned(cluster, "whole", 0));
        assertThat(whole).isInstanceOf(Admission.Admitted.class);
        assertThat(((Admission.Admitted) whole).container("main").envs())
                .containsEntry("ELASTICGPU_CARD_INDEX", "0")
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-00000000-0000-4000-8000-00000000000" + 0);
    }
}
