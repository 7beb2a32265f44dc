package io.elasticgpu.bench;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.NodeAgent;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.allocation.NodePod;
import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.deviceplugin.api.DevicePluginGrpc;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * {@code bench/run node-agent [ALLOCATIONS]}: the agent's {@code Allocate} latency over its unix socket with 100 pods
 * pending on an 8-card node (kubelet played by {@link FakeKubelet}; baseline: a plugin that answers every call with
 * the same environment, i.e. the cost of gRPC alone), then the start-up time and resident memory of an agent process
 * with 8 simulated cards.
 */
final class NodeAgentBenchmark {

    static final int CARDS = 8;
    static final long BLOCK_MIB = 64;
    private static final String MEM = ResourceNames.GPU_MEMORY;

    private NodeAgentBenchmark() {}

    static Hardware eightCards() {
        List<Gpu> gpus = new ArrayList<>();
        Topology.Builder t = Topology.builder(CARDS);
        for (int i = 0; i < CARDS; i++) {
            gpus.add(new Gpu(
                    i,
                    "GPU-%08x-1111-2222-3333-444444444444".formatted(i),
                    "NVIDIA A100-SXM4-80GB",
                    81_920,
                    "00000000:%02X:00.0".formatted(i + 1),
                    i,
                    i / 4,
                    false));
            for (int j = i + 1; j < CARDS; j++) {
                if (i / 4 == j / 4) {
                    t.link(i, j, Link.nvlink(12));
                }
            }
        }
        return new Hardware("570.86.15", gpus, t.build());
    }

    static AgentConfig config(Path dir, Path podResources) {
        return AgentConfig.builder("bench-node")
                .withPluginDir(dir)
                .withPodResourcesSocket(podResources)
                .withMemoryBlockMib(BLOCK_MIB)
                .withCompatibility(false)
                .build();
    }

    static void run(int allocations) throws Exception {
        System.out.printf(
                "node agent, 8 simulated A100 80 GB cards, %d MiB memory blocks; %d cores%n",
                BLOCK_MIB, Runtime.getRuntime().availableProcessors());
        Path dir = Files.createTempDirectory("egpu-bench-agent");
        try (FakeKubelet kubelet = new FakeKubelet(dir)) {
            MemoryCluster cluster = new MemoryCluster();
            Hardware hw = eightCards();
            try (NodeAgent agent = NodeAgent.start(
                    config(dir, kubelet.podResourcesSocket()),
                    SimulatedBackend.of(hw),
                    cluster,
                    InstantSource.system())) {
                Server echo = UnixSockets.serve(dir.resolve("echo.sock"), new Echo());
                awaitRegistered(kubelet, agent.resources().size());
                long[] warm = admit(kubelet, cluster, hw, allocations / 4, MEM);
                long[] agentNanos = admit(kubelet, cluster, hw, allocations, MEM);
                long[] echoNanos = echo(dir, allocations);
                System.out.printf(
                        "%nAllocate with 100 pods pending (%d calls after %d warm-up):%n", allocations, warm.length);
                System.out.printf(
                        "  %-12s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms%n",
                        "elastic-gpu", pct(agentNanos, 50), pct(agentNanos, 99), pct(agentNanos, 100));
                System.out.printf(
                        "  %-12s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms%n",
                        "echo plugin", pct(echoNanos, 50), pct(echoNanos, 99), pct(echoNanos, 100));
                System.out.printf(
                        "  p99 %.1fx echo; target p99 < 10 ms: %s%n",
                        pct(agentNanos, 99) / pct(echoNanos, 99), pct(agentNanos, 99) < 10 ? "met" : "NOT met");
                echo.shutdownNow();
            }
            kubelet.forgetAll();
            footprint(dir, kubelet);
        }
    }

    private static void awaitRegistered(FakeKubelet kubelet, int n) throws InterruptedException {
        for (int i = 0; i < 200 && kubelet.registered() < n; i++) {
            Thread.sleep(50);
        }
        if (kubelet.registered() < n) {
            throw new IllegalStateException(
                    "only %d of %d plugins registered within 10 s".formatted(kubelet.registered(), n));
        }
    }

    /** Keeps 100 pods pending; kubelet admits them in random order; old running pods are deleted as it goes. */
    private static long[] admit(FakeKubelet kubelet, MemoryCluster cluster, Hardware hw, int calls, String resource) {
        Random random = new Random(42);
        List<NodePod> pending = new ArrayList<>();
        Deque<NodePod> running = new ArrayDeque<>();
        long[] nanos = new long[calls];
        int serial = 0;
        for (int i = 0; i < calls; i++) {
            while (pending.size() < 100) {
                NodePod p = pod("p" + System.nanoTime() + "-" + serial, serial++, hw);
                pending.add(p);
                cluster.pods.add(p);
            }
            NodePod p = pending.remove(random.nextInt(pending.size()));
            int card =
                    p.plan().orElseThrow().containers().get("main").getFirst().card();
            List<String> ids = new ArrayList<>();
            for (int b = 0; b < 4096 / BLOCK_MIB; b++) {
                ids.add(hw.gpus().get(card).uuid() + "::m" + (serial * 64 + b) % 1280);
            }
            long t0 = System.nanoTime();
            kubelet.allocate(resource, new ContainerKey(p.namespace(), p.name(), "main"), ids);
            nanos[i] = System.nanoTime() - t0;
            running.add(p);
            if (running.size() > 60) {
                NodePod gone = running.removeFirst();
                cluster.pods.remove(gone);
                kubelet.forget(new ContainerKey(gone.namespace(), gone.name(), "main"));
            }
        }
        return nanos;
    }

    private static NodePod pod(String name, int serial, Hardware hw) {
        int card = serial % CARDS;
        Share share = new Share(card, hw.gpus().get(card).uuid(), 0, 4096);
        return new NodePod(
                "uid-" + name,
                "bench",
                name,
                serial,
                Optional.of(new PodGrant("bench-node", Map.of("main", List.of(share)))),
                false,
                List.of(new NodePod.Container("main", Map.of(MEM, 4096 / BLOCK_MIB), Family.ELASTIC_GPU, false)));
    }

    private static long[] echo(Path dir, int calls) {
        var channel = UnixSockets.connect(dir.resolve("echo.sock"));
        var stub = DevicePluginGrpc.newBlockingStub(channel);
        long[] nanos = new long[calls];
        AllocateRequest request = AllocateRequest.newBuilder()
                .addContainerRequests(io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest.newBuilder()
                        .addDevicesIds("x"))
                .build();
        for (int i = 0; i < calls / 4 + calls; i++) {
            long t0 = System.nanoTime();
            stub.allocate(request);
            if (i >= calls / 4) {
                nanos[i - calls / 4] = System.nanoTime() - t0;
            }
        }
        channel.shutdownNow();
        return nanos;
    }

    /** The baseline: a device plugin that answers every Allocate with the same environment. */
    private static final class Echo extends DevicePluginGrpc.DevicePluginImplBase {
        @Override
        public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
            out.onNext(AllocateResponse.newBuilder()
                    .addContainerResponses(
                            ContainerAllocateResponse.newBuilder().putEnvs("NVIDIA_VISIBLE_DEVICES", "GPU-0"))
                    .build());
            out.onCompleted();
        }
    }

    /** The {@code p}th percentile of {@code nanos}, in milliseconds. */
    static double pct(long[] nanos, int p) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        int i = Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1);
        return s[Math.max(0, i)] / 1e6;
    }

    /** Starts {@link AgentFootprint} as its own JVM with the agent's production heap settings. */
    private static void footprint(Path dir, FakeKubelet kubelet) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        String jar = Path.of(NodeAgentBenchmark.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(AgentFootprint.JVM_OPTIONS);
        cmd.addAll(List.of(
                "-cp",
                jar,
                AgentFootprint.class.getName(),
                dir.toString(),
                kubelet.podResourcesSocket().toString()));
        long t0 = System.nanoTime();
        Process child = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()))) {
            String line = out.readLine();
            double startMs = (System.nanoTime() - t0) / 1e6;
            Thread.sleep(10_000); // steady state: streams open, health watch idle, after the start-up garbage
            long rss = rssKib(child.pid());
            System.out.printf(
                    "%nagent process (%s): registered %s, %.0f ms after launch; resident memory after 10 s: %d MiB "
                            + "(target <= 150 MiB: %s)%n",
                    String.join(" ", AgentFootprint.JVM_OPTIONS),
                    line,
                    startMs,
                    rss / 1024,
                    rss / 1024 <= 150 ? "met" : "NOT met");
        } finally {
            child.destroy();
            child.waitFor();
        }
    }

    private static long rssKib(long pid) throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D+", ""));
            }
        }
        return -1;
    }
}
