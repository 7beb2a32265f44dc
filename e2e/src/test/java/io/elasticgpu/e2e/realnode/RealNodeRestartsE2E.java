package io.elasticgpu.e2e.realnode;

import static io.elasticgpu.e2e.realnode.GpuWorkloads.CARD_MIB;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.expectedEnvironment;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.gpuVariables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The device-plugin path on the real node when something restarts: a container kubelet restarts, kubelet itself, the
 * node agent SIGKILLed while containers are being admitted, and kubelet stopped while two pods it cannot tell apart
 * are scheduled. In every case a running container was told exactly what its own pod's allocation says, and no card
 * holds more than it has.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeRestartsE2E {

    private static GpuWorkloads gpus;

    @BeforeAll
    static void startElasticGpu(ControlPlane controlPlane, RealNode node) {
        gpus = GpuWorkloads.start(controlPlane, node, RealNodeAgent.Api.DEVICE_PLUGIN, List.of());
        try (KubernetesClient client = controlPlane.newClient()) {
            GpuWorkloads.awaitDevicePlugin(client, node);
        }
    }

    @AfterAll
    static void stopElasticGpu() {
        if (gpus != null) {
            gpus.close();
        }
    }

    @Test
    void aContainerKubeletRestartsIsToldTheSameCardsAgain(TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        // The first run reports and exits 3; kubelet starts the container again, which reports and stays.
        String script =
                ContainerReport.script("if [ -e /state/ran ]; then sleep 3600; else touch /state/ran; exit 3; fi");
        pods.create(pods.reporting("again", Map.of(ResourceNames.GPU_MEMORY, "128", ResourceNames.GPU_CORE, "20"))
                .editSpec()
                .editFirstContainer()
                .withCommand("sh", "-c", script)
                .addNewVolumeMount()
                .withName("state")
                .withMountPath("/state")
                .endVolumeMount()
                .endContainer()
                .addNewVolume()
                .withName("state")
                .withNewEmptyDir()
                .endEmptyDir()
                .endVolume()
                .endSpec()
                .build());

        await().atMost(RealNodePods.WAIT)
                .until(() -> pods.status("again", "main")
                        .map(s -> s.getRestartCount() >= 1 && s.getState().getRunning() != null)
                        .orElse(false));
        ContainerReport second = pods.report("again", "main");
        ContainerReport first = pods.previousReport("again", "main");
        List<Share> shares = GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "again")
                .containers()
                .get("main");
        assertThat(gpuVariables(first)).isEqualTo(expectedEnvironment(shares, true, true));
        assertThat(gpuVariables(second))
                .as("after kubelet restarted the container")
                .isEqualTo(gpuVariables(first));
    }

    @Test
    void restartingKubeletChangesNothingInRunningContainersAndNewPodsStillStart(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        RealNodePods pods = new RealNodePods(client, cluster.namespace(), node);
        pods.create(pods.reporting("slice", Map.of(ResourceNames.GPU_MEMORY, "256", ResourceNames.GPU_CORE, "30"))
                .build());
        pods.create(pods.reporting("whole", Map.of(ResourceNames.GPU, "1")).build());
        Map<String, ContainerReport> reports = new LinkedHashMap<>();
        Map<String, ContainerStatus> before = new LinkedHashMap<>();
        Map<String, String> annotations = new LinkedHashMap<>();
        for (String name : List.of("slice", "whole")) {
            reports.put(name, pods.report(name, "main"));
            GpuWorkloads.allocated(client, cluster.namespace(), name);
            before.put(name, pods.status(name, "main").orElseThrow());
            annotations.put(name, pods.get(name).getMetadata().getAnnotations().get(Annotations.ALLOCATION));
        }
        long kubeletPid = node.kubeletPid();

        node.restartKubelet();
        assertThat(node.kubeletPid()).isNotEqualTo(kubeletPid);
        GpuWorkloads.awaitDevicePlugin(client, node);

        for (String name : List.of("slice", "whole")) {
            ContainerStatus after = pods.status(name, "main").orElseThrow();
            assertThat(after.getContainerID())
                    .as("%s's container", name)
                    .isEqualTo(before.get(name).getContainerID());
            assertThat(after.getRestartCount()).as("%s's restarts", name).isZero();
            assertThat(after.getState().getRunning().getStartedAt())
                    .isEqualTo(before.get(name).getState().getRunning().getStartedAt());
            assertThat(pods.get(name).getStatus().getPhase()).isEqualTo("Running");
            assertThat(pods.get(name).getMetadata().getAnnotations().get(Annotations.ALLOCATION))
                    .isEqualTo(annotations.get(name));
            assertThat(pods.report(name, "main"))
                    .as("what %s's container printed, once", name)
                    .isEqualTo(reports.get(name));
        }
        pods.create(pods.reporting("after", Map.of(ResourceNames.GPU_MEMORY, "128", ResourceNames.GPU_CORE, "10"))
                .build());
        ContainerReport after = pods.report("after", "main");
        PodGrant allocation = GpuWorkloads.allocated(client, cluster.namespace(), "after");
        assertThat(gpuVariables(after))
                .isEqualTo(expectedEnvironment(allocation.containers().get("main"), true, true));
        List<PodGrant> all = List.of(
                GpuWorkloads.allocated(client, cluster.namespace(), "slice"),
                GpuWorkloads.allocated(client, cluster.namespace(), "whole"),
                allocation);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(gpus.agentMemoryByCard()).isEqualTo(GpuWorkloads.memoryByCard(all)));
    }

    /**
     * Four slices of different sizes (no two alike, so the extender binds them all at once) are admitted by kubelet;
     * the agent is SIGKILLed as soon as it has answered for all four, while their containers start, and started again
     * two seconds later. Two more pods are created while it is away (kubelet refuses them, or admits them once it is
     * back) and four more once it is back, when it must count what the containers admitted before its crash hold.
     * Every container that runs was told its own pod's cards and shares, no card holds more than it has, and the
     * agent counts on each card what the running containers hold.
     */
    @Test
    void theAgentKilledWhileContainersStartGivesNoContainerAnotherPodsCards(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        RealNodePods pods = new RealNodePods(client, cluster.namespace(), node);
        List<String> firstWave = List.of("p0", "p1", "p2", "p3");
        for (int i = 0; i < 6; i++) {
            if (i == firstWave.size()) {
                await().atMost(RealNodePods.WAIT)
                        .until(() -> firstWave.stream()
                                .allMatch(n -> Annotations.PHASE_ALLOCATED.equals(pods.get(n)
                                        .getMetadata()
                                        .getAnnotations()
                                        .get(Annotations.PHASE))));
                gpus.agent.kill();
            }
            // (i + 1) × 32 blocks × 16 MiB = 512 … 3072 MiB; 5 … 30 %
            pods.create(pods.reporting(
                            "p" + i,
                            Map.of(
                                    ResourceNames.GPU_MEMORY,
                                    Integer.toString((i + 1) * 32),
                                    ResourceNames.GPU_CORE,
                                    Integer.toString((i + 1) * 5)))
                    .build());
        }
        await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
        gpus.agent.restart();
        for (int i = 0; i < 4; i++) {
            // (3 + 2i) × 16 blocks × 16 MiB = 768 … 2304 MiB; 7 … 13 %
            pods.create(pods.reporting(
                            "q" + i,
                            Map.of(
                                    ResourceNames.GPU_MEMORY,
                                    Integer.toString((3 + 2 * i) * 16),
                                    ResourceNames.GPU_CORE,
                                    Integer.toString(7 + 2 * i)))
                    .build());
        }

        // Settled: every pod's container ran and reported, or kubelet refused the pod.
        await().atMost(Duration.ofMinutes(3))
                .until(() -> pods.all().stream()
                        .allMatch(p -> "Failed".equals(p.getStatus().getPhase())
                                || pods.status(p.getMetadata().getName(), "main")
                                        .map(s -> s.getState().getRunning() != null)
                                        .orElse(false)));
        List<PodGrant> running = new ArrayList<>();
        Map<String, String> outcome = new TreeMap<>();
        for (Pod p : pods.all()) {
            String name = p.getMetadata().getName();
            if ("Failed".equals(p.getStatus().getPhase())) {
                outcome.put(
                        name,
                        "refused: " + p.getStatus().getReason() + " "
                                + p.getStatus().getMessage());
                continue;
            }
            PodGrant allocation = GpuWorkloads.allocated(client, cluster.namespace(), name);
            List<Share> shares = allocation.containers().get("main");
            assertThat(gpuVariables(pods.report(name, "main")))
                    .as("what %s's container was told", name)
                    .isEqualTo(expectedEnvironment(shares, true, true));
            running.add(allocation);
            outcome.put(name, "runs on card " + shares.getFirst().card());
        }
        System.out.printf("agent SIGKILLed during admission: %s%n", outcome);
        assertThat(outcome)
                .as("the pods admitted before the crash and those created after it")
                .allSatisfy((name, what) -> assertThat(name.equals("p4") || name.equals("p5") ? "runs" : what)
                        .startsWith("runs"));
        Map<Integer, Long> memory = GpuWorkloads.memoryByCard(running);
        assertThat(memory.values()).allSatisfy(mib -> assertThat(mib).isLessThanOrEqualTo(CARD_MIB));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(gpus.agentMemoryByCard()).isEqualTo(memory));
        // What the restarted agent said it found held, on the node: the first wave, which kubelet had admitted.
        String ns = cluster.namespace();
        String said = await().atMost(RealNodePods.WAIT)
                .until(
                        () -> client.v1().events().inNamespace("default").list().getItems().stream()
                                .filter(e -> "HoldsRebuilt".equals(e.getReason())
                                        && node.name()
                                                .equals(e.getInvolvedObject().getName()))
                                .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                                .filter(m -> m.contains(ns + "/p0/main"))
                                .findFirst()
                                .orElse(""),
                        m -> !m.isEmpty());
        for (String name : firstWave) {
            int card = GpuWorkloads.allocated(client, ns, name)
                    .containers()
                    .get("main")
                    .getFirst()
                    .card();
            assertThat(said).contains("%s/%s/main: card %d".formatted(ns, name, card));
        }
    }

    /**
     * Two pods kubelet cannot tell apart (each asks {@code nvidia.com/gpu: 1}, with another {@code gpumem}) reach
     * kubelet together: kubelet is stopped while they are scheduled, and when it starts it admits the pods it finds in
     * the order they were created, which here is not the order they were bound in. {@code Allocate} names no pod, and
     * the agent takes the oldest bind among look-alikes, so without the extender's look-alike gate the pod created
     * first was told the other pod's share. With it, the extender binds the second look-alike only once the agent has
     * marked the first admitted, and each container is told its own pod's share.
     */
    @Test
    void lookalikePodsKubeletFindsTogetherAreEachToldTheirOwnShare(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        RealNodePods pods = new RealNodePods(client, cluster.namespace(), node);
        Map<String, Integer> mib = Map.of("created-first", 3072, "bound-first", 1024);
        long heldBefore = gpus.extenderBindsHeld();
        node.stopKubelet();
        try {
            // created-first is held back by a scheduling gate; bound-first is created in a later second (creation
            // times have whole seconds) and bound at once; then created-first is released.
            Pod held = pods.create(pods.reporting("created-first", hami(mib.get("created-first")))
                    .editSpec()
                    .addNewSchedulingGate()
                    .withName("elasticgpu.io/e2e-hold")
                    .endSchedulingGate()
                    .endSpec()
                    .build());
            Instant created = Instant.parse(held.getMetadata().getCreationTimestamp());
            await().atMost(Duration.ofSeconds(3)).until(() -> Instant.now().isAfter(created.plusMillis(1100)));
            pods.create(
                    pods.reporting("bound-first", hami(mib.get("bound-first"))).build());
            await().atMost(RealNodePods.WAIT)
                    .until(() -> pods.get("bound-first").getSpec().getNodeName() != null);
            client.pods()
                    .inNamespace(cluster.namespace())
                    .withName("created-first")
                    .edit(p -> new PodBuilder(p)
                            .editSpec()
                            .withSchedulingGates(List.of())
                            .endSpec()
                            .build());
            // Bound too, or held until bound-first is admitted (the gate): kube-scheduler retries a held bind after
            // 1, 2, 4, then 8 s. After the fourth, kubelet has 8 s to start and take its device plugins back before
            // the next try; a try while it has none fails on capacity, and such a pod waits for kube-scheduler's
            // five-minute retry (its queueing hint counts the HAMi resource no node advertises, so the node's
            // capacity coming back does not wake it).
            await().atMost(RealNodePods.WAIT)
                    .until(() -> pods.get("created-first").getSpec().getNodeName() != null
                            || gpus.extenderBindsHeld() >= heldBefore + 4);
        } finally {
            node.startKubelet();
        }
        GpuWorkloads.awaitDevicePlugin(client, node);

        List<PodGrant> all = new ArrayList<>();
        for (String name : List.of("created-first", "bound-first")) {
            ContainerReport report = pods.report(name, "main", Duration.ofMinutes(6));
            PodGrant allocation = GpuWorkloads.allocated(client, cluster.namespace(), name);
            List<Share> shares = allocation.containers().get("main");
            assertThat(gpuVariables(report))
                    .as("what %s's container was told", name)
                    .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", mib.get(name) + "m")
                    .isEqualTo(expectedEnvironment(shares, true, true));
            all.add(allocation);
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(gpus.agentMemoryByCard()).isEqualTo(GpuWorkloads.memoryByCard(all)));
    }

    private static Map<String, String> hami(int mib) {
        return Map.of(ResourceNames.NVIDIA_GPU, "1", ResourceNames.HAMI_GPU_MEMORY, Integer.toString(mib));
    }
}
