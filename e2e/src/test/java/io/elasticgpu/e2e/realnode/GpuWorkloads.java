package io.elasticgpu.e2e.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.Metrics;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.deviceplugin.AdvertisedResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Elastic GPU on the real node for a test class: the extender beside the real kube-scheduler ({@code
 * src/test/resources/scheduler/extender.yaml}), the node agent with simulated cards, and the checks that tie what a
 * container printed to what the pod's {@code elasticgpu.io/allocation} and the agent say.
 */
final class GpuWorkloads implements AutoCloseable {

    /**
     * MiB in one unit of {@code elasticgpu.io/gpu-memory}, for the extender and the agent alike (the chart's default).
     * */
    static final int MEMORY_BLOCK_MIB = 16;

    static final int CARDS = 4;
    static final long CARD_MIB = 8192;
    private static final Path TEMPLATES = Path.of("src/test/resources/scheduler");

    private final ControlPlane controlPlane;
    private final EgpuProcess extender;
    final RealNodeAgent agent;

    private GpuWorkloads(ControlPlane controlPlane, EgpuProcess extender, RealNodeAgent agent) {
        this.controlPlane = controlPlane;
        this.extender = extender;
        this.agent = agent;
    }

    /**
     * Starts the extender, points kube-scheduler at it, and starts the agent on {@code node} with {@value #CARDS}
     * simulated cards of {@value #CARD_MIB} MiB.
     */
    static GpuWorkloads start(
            ControlPlane controlPlane, RealNode node, RealNodeAgent.Api api, List<String> agentOptions) {
        try {
            return start(
                    controlPlane,
                    node,
                    api,
                    new RealNodeAgent.Cards.Simulated(simulatedCards(controlPlane.workDir())),
                    agentOptions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** As {@link #start(ControlPlane, RealNode, RealNodeAgent.Api, List)}, the agent's cards from {@code cards}. */
    static GpuWorkloads start(
            ControlPlane controlPlane,
            RealNode node,
            RealNodeAgent.Api api,
            RealNodeAgent.Cards cards,
            List<String> agentOptions) {
        EgpuProcess extender = EgpuProcess.start(
                "scheduler",
                List.of(
                        "--kubeconfig",
                        controlPlane.kubeconfig().toString(),
                        "--memory-block-mib",
                        Integer.toString(MEMORY_BLOCK_MIB)),
                controlPlane.workDir().resolve("logs").resolve("extender-real-node-" + System.nanoTime() + ".log"));
        try {
            controlPlane.restartScheduler(TEMPLATES.resolve("extender.yaml"), extender.url());
            List<String> options =
                    new java.util.ArrayList<>(List.of("--memory-block-mib", Integer.toString(MEMORY_BLOCK_MIB)));
            options.addAll(agentOptions);
            RealNodeAgent agent = RealNodeAgent.start(node, controlPlane, api, cards, options);
            return new GpuWorkloads(controlPlane, extender, agent);
        } catch (RuntimeException e) {
            extender.close();
            controlPlane.restartScheduler(null);
            throw e;
        }
    }

    private static Path simulatedCards(Path dir) throws IOException {
        return Files.writeString(dir.resolve("real-node-gpus.yaml"), """
                driverVersion: "570.86.15"
                cards:
                  - {model: NVIDIA T1000 8GB, memoryMiB: %d, numa: 0, count: %d}
                """.formatted(CARD_MIB, CARDS));
    }

    /** Waits until the agent published the node's cards and kubelet advertises them through the device plugin. */
    static List<NodeInventory.Card> awaitDevicePlugin(KubernetesClient client, RealNode node) {
        // Every name the agent advertises (its own rule, compatibility names on as here), each wholly allocatable:
        // the agent registers them one by one, and a test that stops kubelet after the first showed would leave
        // kubelet without the others (a previous agent's stale figures have allocatable 0 below capacity).
        List<String> names = AgentConfig.builder(node.name()).build().resources().stream()
                .map(AdvertisedResource::name)
                .toList();
        await().atMost(RealNodePods.WAIT).until(() -> {
            var n = client.nodes().withName(node.name()).get();
            Map<String, Quantity> allocatable = n.getStatus().getAllocatable();
            Map<String, Quantity> capacity = n.getStatus().getCapacity();
            Quantity gpus = allocatable.get(ResourceNames.GPU);
            Quantity memory = allocatable.get(ResourceNames.GPU_MEMORY);
            return gpus != null
                    && gpus.getNumericalAmount().intValue() == CARDS
                    && memory != null
                    && memory.getNumericalAmount().longValue() == CARDS * CARD_MIB / MEMORY_BLOCK_MIB
                    && names.stream()
                            .allMatch(r -> allocatable.get(r) != null
                                    && allocatable.get(r).getNumericalAmount().signum() > 0
                                    && allocatable.get(r).equals(capacity.get(r)))
                    && n.getMetadata().getAnnotations().containsKey(Annotations.INVENTORY);
        });
        return NodeInventory.fromJson(client.nodes()
                        .withName(node.name())
                        .get()
                        .getMetadata()
                        .getAnnotations()
                        .get(Annotations.INVENTORY))
                .cards();
    }

    /**
     * The pod's {@code elasticgpu.io/allocation} once the agent has written what kubelet gave ({@code phase:
     * allocated}). */
    static PodGrant allocated(KubernetesClient client, String namespace, String pod) {
        Pod p = await().atMost(RealNodePods.WAIT)
                .until(
                        () -> client.pods().inNamespace(namespace).withName(pod).get(),
                        x -> x != null
                                && Annotations.PHASE_ALLOCATED.equals(
                                        x.getMetadata().getAnnotations().get(Annotations.PHASE)));
        return PodGrant.fromJson(p.getMetadata().getAnnotations().get(Annotations.ALLOCATION));
    }

    /**
     * What a container holding {@code shares} must find in its environment, by the rule of the node agent's reference
     * page: the cards' uuids and indexes; with a memory resource its first card's MiB and HAMi's per-card limit; with a
     * compute resource its percent (100 for no compute limit).
     */
    static Map<String, String> expectedEnvironment(List<Share> shares, boolean memory, boolean compute) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("NVIDIA_VISIBLE_DEVICES", shares.stream().map(Share::uuid).collect(Collectors.joining(",")));
        env.put(
                "ELASTICGPU_CARD_INDEX",
                shares.stream().map(s -> Integer.toString(s.card())).collect(Collectors.joining(",")));
        if (memory) {
            env.put(
                    "ELASTICGPU_MEMORY_LIMIT_MIB",
                    Long.toString(shares.getFirst().memoryMib()));
            for (int i = 0; i < shares.size(); i++) {
                env.put("CUDA_DEVICE_MEMORY_LIMIT_" + i, shares.get(i).memoryMib() + "m");
            }
        }
        if (compute) {
            int milli = shares.getFirst().milli();
            String percent = Integer.toString(milli == 0 ? 100 : milli / 10);
            env.put("ELASTICGPU_CORE_PERCENT", percent);
            env.put("CUDA_DEVICE_SM_LIMIT", percent);
        }
        return env;
    }

    /** The container's GPU variables: ours, HAMi's, NVIDIA's, Volcano's, Aliyun's and MPS's. */
    static Map<String, String> gpuVariables(ContainerReport report) {
        return new TreeMap<>(report.env().entrySet().stream()
                .filter(e -> e.getKey().matches("(NVIDIA_|ELASTICGPU_|CUDA_|VOLCANO_GPU|ALIYUN_COM_GPU).*"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    /** The agent's own account of what the node's containers hold, per card index: its metric, in MiB. */
    Map<Integer, Long> agentMemoryByCard() {
        return metric("egpu_node_agent_card_memory_allocated_mib");
    }

    /** The same for compute, percent. */
    Map<Integer, Long> agentCoreByCard() {
        return metric("egpu_node_agent_card_core_allocated_percent");
    }

    /** How many binds the extender held back so far (look-alikes waiting for kubelet), its metric. */
    long extenderBindsHeld() {
        return (long) Metrics.sum(Metrics.scrape(extender.url()), "egpu_extender_binds_held_total ");
    }

    private Map<Integer, Long> metric(String name) {
        Map<Integer, Long> byCard = new TreeMap<>();
        Metrics.scrape(agent.url())
                .lines()
                .filter(l -> l.startsWith(name + "{"))
                .forEach(l -> {
                    String card = l.replaceAll(".*card=\"(\\d+)\".*", "$1");
                    byCard.put(Integer.parseInt(card), (long) Metrics.value(l));
                });
        assertThat(byCard).as("the agent's %s", name).hasSize(CARDS);
        return byCard;
    }

    /** What {@code allocations} hold per card index, MiB (every card listed, 0 for none). */
    static Map<Integer, Long> memoryByCard(List<PodGrant> allocations) {
        Map<Integer, Long> byCard = new TreeMap<>();
        for (int c = 0; c < CARDS; c++) {
            byCard.put(c, 0L);
        }
        allocations.forEach(a -> a.containers()
                .values()
                .forEach(shares -> shares.forEach(s -> byCard.merge(s.card(), s.memoryMib(), Long::sum))));
        return byCard;
    }

    @Override
    public void close() {
        try {
            agent.close();
        } finally {
            try {
                controlPlane.restartScheduler(null);
            } finally {
                extender.close();
            }
        }
    }
}
