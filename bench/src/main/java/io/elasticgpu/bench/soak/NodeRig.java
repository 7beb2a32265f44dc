package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.Metrics;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.kubelet.Capacity;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The node the node soak drives: the real kube-apiserver (with a kwok node object), kubelet's own device manager and
 * pod-resources server (the Go kubelet driver) and {@code egpu node-agent} as its own process, started as the chart
 * starts it, so that a SIGKILL is a real crash. The simulated cards are an 8-card A100 80 GB node with two NVLink
 * islands; their Xids are lines appended to the simulated backend's events file.
 */
final class NodeRig implements AutoCloseable {

    static final String NAMESPACE = "node-soak";
    static final int CARDS = 8;
    static final long CARD_MIB = 81_920;
    /** The chart's default {@code memoryBlockMib}, given to the agent and to the soak's planner alike. */
    static final long BLOCK_MIB = 16;

    static final long ALIYUN_UNIT_MIB = 1024;
    /** The chart's JVM options for the agent. */
    private static final List<String> JVM =
            List.of("-XX:+UseSerialGC", "-Xmx64m", "--enable-native-access=ALL-UNNAMED");

    private static final Duration READY = Duration.ofMinutes(2);
    private static final GpuNodeSpec SPEC = GpuNodeSpec.of("soak-node", CARDS, "A100-SXM4-80GB", CARD_MIB);
    private static final Pattern MEMORY_GAUGE =
            Pattern.compile("^egpu_node_agent_card_memory_allocated_mib\\{[^}]*card=\"(\\d+)\"[^}]*} (\\S+)$");
    private static final String SIMULATED = """
            driverVersion: "570.86.15"
            cards:
              - {model: NVIDIA A100-SXM4-80GB, memoryMiB: 81920, numa: 0, count: 4}
              - {model: NVIDIA A100-SXM4-80GB, memoryMiB: 81920, numa: 1, count: 4}
            links:
              - {cards: [0, 1, 2, 3], kind: NVLINK, nvlinks: 12}
              - {cards: [4, 5, 6, 7], kind: NVLINK, nvlinks: 12}
            """;

    private final ControlPlane cp;
    private final KubernetesClient client;
    private final KubeletDriver kubelet;
    private final Path workDir;
    private final Path simulated;
    private final String node;
    private ManagedProcess agent;
    private int metricsPort;
    private int incarnation;

    private NodeRig(ControlPlane cp, KubeletDriver kubelet, Path workDir, Path simulated, String node) {
        this.cp = cp;
        this.client = cp.newClient();
        this.kubelet = kubelet;
        this.workDir = workDir;
        this.simulated = simulated;
        this.node = node;
    }

    static NodeRig start(Path workDir) throws IOException {
        Files.createDirectories(workDir);
        Path simulated = Files.writeString(workDir.resolve("node.yaml"), SIMULATED);
        ControlPlane cp = ControlPlane.start(
                ControlPlane.Options.of(workDir.resolve("control-plane"), Binaries.locate(Binaries.E2E_DIR)));
        KubeletDriver kubelet;
        try (KubernetesClient c = cp.newClient()) {
            c.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
            FakeGpuNodes.createBare(c, List.of(SPEC), Duration.ofMinutes(2));
            Path driver = switch (DriverBinary.locate()) {
                case DriverBinary.Found(Path path) -> path;
                case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
            };
            kubelet = KubeletDriver.start(driver, workDir.resolve("kubelet"));
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
        NodeRig rig = new NodeRig(cp, kubelet, workDir, simulated, SPEC.name());
        try {
            rig.startAgent();
            return rig;
        } catch (RuntimeException e) {
            rig.close(); // the agent too, if it started and did not register
            throw e;
        }
    }

    KubernetesClient client() {
        return client;
    }

    KubeletDriver kubelet() {
        return kubelet;
    }

    String node() {
        return node;
    }

    Path logs() {
        return workDir.resolve("control-plane").resolve("logs");
    }

    /** {@code egpu node-agent} as the chart runs it, ready once it answers /healthz and kubelet lists its devices. */
    void startAgent() {
        metricsPort = Ports.free();
        List<String> line = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        line.addAll(JVM);
        line.addAll(List.of(
                "-jar",
                EgpuProcess.jar().toString(),
                "node-agent",
                "--kubeconfig",
                cp.kubeconfig().toString(),
                "--node-name",
                node,
                "--backend",
                "simulated",
                "--simulated-gpus",
                simulated.toString(),
                "--device-plugin-dir",
                kubelet.pluginDir().toString(),
                "--pod-resources-socket",
                kubelet.podResourcesSocket().toString(),
                "--memory-block-mib",
                Long.toString(BLOCK_MIB),
                "--aliyun-unit-mib",
                Long.toString(ALIYUN_UNIT_MIB),
                // Cards hit by an Xid storm come back within the soak instead of after the default five minutes.
                "--health-quiet-period",
                "PT5S",
                "--metrics-listen",
                "127.0.0.1:" + metricsPort));
        agent = ManagedProcess.start(
                "node-agent-" + ++incarnation, line, logs().resolve("node-agent-" + incarnation + ".log"));
        agent.awaitAnswering(URI.create("http://127.0.0.1:" + metricsPort + "/healthz"), READY);
        awaitRegistered();
    }

    /** SIGKILL: no shutdown hook runs, the plugin sockets stay behind. */
    void killAgent() {
        agent.kill();
    }

    /**
     * Waits until kubelet knows every memory block of every card again (its capacity counts unhealthy ones too) and
     * every resource kubelet knows has devices allocatable: each plugin registered and listed its devices (a
     * plugin that disconnected has all its devices marked unhealthy by kubelet, so a dead agent does not pass).
     */
    void awaitRegistered() {
        long blocks = CARDS * CARD_MIB / BLOCK_MIB;
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            Capacity c = kubelet.capacity();
            if (c.capacity(ResourceNames.GPU_MEMORY) == blocks
                    && c.capacity().keySet().stream().allMatch(r -> c.allocatable(r) > 0)) {
                return;
            }
            Soak.sleep(Duration.ofMillis(100));
        }
        throw new IllegalStateException("kubelet does not list the agent's devices " + READY + " after its start: "
                + kubelet.capacity() + "; see " + agent.log());
    }

    /** The plugin sockets the agent serves in kubelet's directory. */
    List<Path> pluginSockets() {
        try (Stream<Path> files = Files.list(kubelet.pluginDir())) {
            return files.filter(p -> p.getFileName().toString().startsWith("egpu-"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends lines to the simulated backend's events file ({@code xid CARD XID}, ...). */
    void events(List<String> lines) {
        try {
            Files.writeString(
                    simulated.resolveSibling(simulated.getFileName() + ".events"),
                    String.join("\n", lines) + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the agent says it has handed out, MiB per card index, from its /metrics; empty when it does not answer. */
    Optional<Map<Integer, Long>> agentMemoryByCard() {
        try {
            String text = Metrics.scrape("http://127.0.0.1:" + metricsPort);
            Map<Integer, Long> held = new HashMap<>();
            for (String line : text.split("\n")) {
                Matcher m = MEMORY_GAUGE.matcher(line);
                if (m.matches()) {
                    held.put(Integer.parseInt(m.group(1)), (long) Double.parseDouble(m.group(2)));
                }
            }
            return Optional.of(held);
        } catch (UncheckedIOException | IllegalStateException e) {
            return Optional.empty();
        }
    }

    /** Resident memory is sampled for these. */
    Map<String, Long> pids() {
        return Map.of("node-agent", agent.pid(), "kube-apiserver", cp.pids().getOrDefault("kube-apiserver", -1L));
    }

    @Override
    public void close() {
        if (agent != null && agent.alive()) {
            agent.stop(Duration.ofSeconds(10));
        }
        kubelet.close();
        client.close();
        cp.close();
    }
}
