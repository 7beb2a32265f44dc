package io.elasticgpu.localcluster.demo;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.Poll;
import io.elasticgpu.localcluster.realnode.HostCheck;
import io.elasticgpu.localcluster.realnode.NodePrograms;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.elasticgpu.localcluster.realnode.RealNodePod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The demo's real node: kubelet, containerd and runc ({@link RealNode}) joined to the demo's control plane, the node
 * agent on it offering {@value #CARDS} simulated cards of {@value #CARD_MIB} MiB through kubelet's device plugin API,
 * and three pods of the sample workload that run there in real containers and print the variables they were handed
 * ({@code NVIDIA_*}, {@code CUDA_*}, {@code ELASTICGPU_*}). The cards are simulated, so no CUDA program runs; what the
 * containers are told, and what the dashboard shows, is what a GPU node's would be.
 */
public final class DemoRealNode implements AutoCloseable {

    static final int CARDS = 2;
    static final long CARD_MIB = 4096;
    static final String MODEL = "NVIDIA T400 4GB";
    /** The pods that run on the real node, and what each asks. */
    static final Map<String, Map<String, Long>> PODS = pods();

    private static final String PRINT = "env | grep -E '^(NVIDIA_|CUDA_|ELASTICGPU_)' | sort; echo '"
            + "--- end of environment" + "'; exec sleep 3600";
    private static final String END = "--- end of environment";

    private final KubernetesClient client;
    private final RealNode node;
    private final boolean ownsNode;
    private final RealNodeAgent agent;

    private DemoRealNode(KubernetesClient client, RealNode node, boolean ownsNode, RealNodeAgent agent) {
        this.client = client;
        this.node = node;
        this.ownsNode = ownsNode;
        this.agent = agent;
    }

    private static Map<String, Map<String, Long>> pods() {
        Map<String, Map<String, Long>> pods = new LinkedHashMap<>();
        pods.put("real-whole", Map.of(ResourceNames.GPU, 1L));
        pods.put("real-slice-a", Map.of(ResourceNames.GPU_MEMORY, 2048L, ResourceNames.GPU_CORE, 30L));
        pods.put("real-slice-b", Map.of(ResourceNames.GPU_MEMORY, 1024L, ResourceNames.GPU_CORE, 20L));
        return pods;
    }

    /** Why this machine cannot run a real node (in one sentence), or empty when it can. */
    public static Optional<String> cannotRun(Path e2eDir) {
        return HostCheck.check(NodePrograms.locate(e2eDir)) instanceof HostCheck.Verdict.CannotRun(String reason)
                ? Optional.of(reason)
                : Optional.empty();
    }

    /** Starts a real node on {@code controlPlane} and the agent on it; {@link #close} stops both. */
    public static DemoRealNode start(ControlPlane controlPlane, Path e2eDir) {
        RealNode node = RealNode.start(controlPlane, RealNode.Options.of(controlPlane, NodePrograms.locate(e2eDir)));
        try {
            return on(controlPlane, node, true);
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Starts the agent on a real node someone else started (and stops): the demo's pods run there, and {@link #close}
     * stops the agent and deletes them.
     */
    public static DemoRealNode on(ControlPlane controlPlane, RealNode node) {
        return on(controlPlane, node, false);
    }

    private static DemoRealNode on(ControlPlane controlPlane, RealNode node, boolean ownsNode) {
        Path cards;
        try {
            cards = Files.writeString(
                    controlPlane.workDir().resolve("demo-real-node-gpus.yaml"), """
                    driverVersion: "570.86.15"
                    cards:
                      - {model: %s, memoryMiB: %d, numa: 0, count: %d}
                    """.formatted(MODEL, CARD_MIB, CARDS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.ensureCardDeviceNodes(CARDS);
        RealNodeAgent agent =
                RealNodeAgent.start(node, controlPlane, RealNodeAgent.Api.DEVICE_PLUGIN, cards, List.of());
        KubernetesClient client = controlPlane.newClient();
        try {
            client.nodes()
                    .withName(node.name())
                    .waitUntilCondition(
                            n -> n != null
                                    && n.getMetadata().getAnnotations().containsKey(Annotations.INVENTORY)
                                    && allocatable(n.getStatus()
                                                    .getAllocatable()
                                                    .get(ResourceNames.GPU))
                                            == CARDS,
                            2,
                            TimeUnit.MINUTES);
        } catch (RuntimeException e) {
            client.close();
            agent.close();
            throw e;
        }
        return new DemoRealNode(client, node, ownsNode, agent);
    }

    private static long allocatable(Quantity q) {
        return q == null ? 0 : q.getNumericalAmount().longValue();
    }

    /** The real node's name. */
    public String nodeName() {
        return node.name();
    }

    /** Creates {@link #PODS} in {@code namespace} on the real node and waits until every container has printed. */
    public void submit(String namespace, Duration timeout) {
        // One after the other, the whole card first: slices placed first may take a share of both cards, and then no
        // card is left whole.
        long deadline = System.nanoTime() + timeout.toNanos();
        PODS.forEach((name, limits) -> {
            client.pods()
                    .inNamespace(namespace)
                    .resource(pod(namespace, name, limits))
                    .create();
            client.pods()
                    .inNamespace(namespace)
                    .withName(name)
                    .waitUntilCondition(
                            p -> p != null
                                    && p.getStatus() != null
                                    && p.getStatus().getContainerStatuses().stream()
                                            .anyMatch(s -> s.getState().getRunning() != null),
                            Math.max(1, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS);
        });
        for (String name : PODS.keySet()) {
            Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            if (!Poll.until(() -> told(namespace, name).containsKey(END), left, Duration.ofMillis(500))) {
                throw new IllegalStateException(
                        "pod %s/%s printed no environment within %s".formatted(namespace, name, timeout));
            }
        }
    }

    /**
     * What the container of pod {@code name} printed: its GPU variables by name, and {@value #END} once it has
     * printed them all.
     */
    public Map<String, String> told(String namespace, String name) {
        Map<String, String> told = new LinkedHashMap<>();
        String log;
        try {
            log = client.pods().inNamespace(namespace).withName(name).getLog();
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return told; // kubelet has not started the container's log yet
        }
        for (String line : log.lines().toList()) {
            int eq = line.indexOf('=');
            if (line.startsWith("---")) {
                told.put(line, "");
            } else if (eq > 0) {
                told.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return told;
    }

    /** Each real-node pod, where it runs and what its container was told. */
    public void print(String namespace, PrintStream out) {
        out.printf(
                "On the real node %s (kubelet, containerd, runc), each container prints what it was handed:%n",
                node.name());
        for (String name : PODS.keySet()) {
            Pod p = client.pods().inNamespace(namespace).withName(name).get();
            out.printf("  %s (%s):%n", name, p == null ? "gone" : p.getStatus().getPhase());
            told(namespace, name).forEach((k, v) -> {
                if (!k.startsWith("---")) {
                    out.printf("    %s=%s%n", k, v);
                }
            });
        }
    }

    private Pod pod(String namespace, String name, Map<String, Long> limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(Long.toString(v))));
        return RealNodePod.running(node, name, PRINT, q)
                .editMetadata()
                .withNamespace(namespace)
                .endMetadata()
                .build();
    }

    /** Stops the agent (and the node, when this started it); the pods go with their namespace or the node. */
    @Override
    public void close() {
        try {
            agent.close();
        } finally {
            client.close();
            if (ownsNode) {
                node.close();
            }
        }
    }
}
