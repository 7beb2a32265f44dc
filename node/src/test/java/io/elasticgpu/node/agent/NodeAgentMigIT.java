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
 * agent serves the card in whole-card mode and keeps out of service the card in MIG mode and the card whose MIG mode
 * waits for a reset, each with its reason.
 */
class NodeAgentMigIT {

    private static final String H100 = "NVIDIA H100 80GB HBM3";
    private static final String NODE = """
            card GPU-00000000-0000-4000-8000-000000000000 00000000:07:00.0 0 0 0 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000001 00000000:0F:00.0 1 0 1 81559 %1$s
            card GPU-00000000-0000-4000-8000-000000000002 00000000:47:00.0 2 0 0 81559 %1$s
            mig 1 1 0 4 4 3 3 40192 MIG-00000000-0000-4000-8000-00000000a001
            migmode 2 0 1
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

    @Test
    void onlyTheCardInWholeCardModeIsServedAndTheOthersArePublishedUnhealthySayingWhy() {
        NvmlStub.configure(NODE);
        kubelet = KubeletDriver.start(binary);
        AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                .withPluginDir(kubelet.pluginDir())
                .withPodResourcesSocket(kubelet.podResourcesSocket())
                .withMemoryBlockMib(1024)
                .withCompatibility(false)
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
                .isEqualTo("MIG mode is on (MIG devices 3g.40gb); it is not served whole or" + " in shares");
        assertThat(cluster.lastReasons[2]).startsWith("MIG mode is off and becomes on at the card's next reset");

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
