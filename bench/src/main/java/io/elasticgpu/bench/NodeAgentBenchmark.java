package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * {@code bench/run node-agent [ALLOCATIONS] [--json FILE]}: the agent's {@code Allocate} latency over its unix socket
 * with 100 pods pending and 60 running on an 8-card node (kubelet played by {@link FakeKubelet}), then the start-up
 * time and resident memory of an agent process with 8 simulated cards. Baseline: an echo plugin on the same gRPC
 * stack that answers every call with the same environment, i.e. the cost of gRPC alone, sent the same request right
 * after each of the agent's calls (or right before, every other call), so that both see the same load on the machine.
 */
final class NodeAgentBenchmark {

    static final int CARDS = 8;
    static final long BLOCK_MIB = 64;
    static final int PENDING = 100;
    static final int RUNNING = 60;
    private static final String MEM = ResourceNames.GPU_MEMORY;
    private static final String ECHO = "bench.elasticgpu.io/echo";

    /**
     * What one run measured; the JSON. Latencies in milliseconds, from the call's start to its answer on kubelet's
     * side; load averages as /proc/loadavg had them (1 minute) before and after the measured calls.
     */
    record Result(
            int allocations,
            int warmUp,
            int pendingPods,
            int runningPods,
            long memoryBlockMib,
            int cores,
            double loadAverageBefore,
            double loadAverageAfter,
            double allocateP50Ms,
            double allocateP99Ms,
            double allocateMaxMs,
            double echoAllocateP50Ms,
            double echoAllocateP99Ms,
            double echoAllocateMaxMs,
            double p99VersusEcho,
            long agentStartMs,
            long agentResidentMib) {}

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

    static void run(int allocations, Path json) throws Exception {
        System.out.printf(
                "node agent, 8 simulated A100 80 GB cards, %d MiB memory blocks; %d cores%n",
                BLOCK_MIB, Runtime.getRuntime().availableProcessors());
        int warmUp = allocations / 4;
        try (TempDirectory temp = new TempDirectory("egpu-bench-agent");
                FakeKubelet kubelet = new FakeKubelet(temp.path())) {
            Path dir = temp.path();
            MemoryCluster cluster = new MemoryCluster();
            Hardware hw = eightCards();
            long[][] nanos;
            double loadBefore;
            double loadAfter;
            try (NodeAgent agent = NodeAgent.start(
                    config(dir, kubelet.podResourcesSocket()),
                    SimulatedBackend.of(hw),
                    cluster,
                    InstantSource.system())) {
                Server echo = UnixSockets.serve(dir.resolve("echo.sock"), new Echo());
                awaitRegistered(kubelet, agent.resources().size());
                kubelet.endpoint(ECHO, "echo.sock");
                Workload workload = new Workload(kubelet, cluster, hw);
                workload.admit(warmUp, MEM);
                loadBefore = loadAverage();
                nanos = workload.admit(allocations, MEM);
                loadAfter = loadAverage();
                echo.shutdownNow();
            }
            long[] agentNanos = nanos[0];
            long[] echoNanos = nanos[1];
            System.out.printf(
                    "%nAllocate with %d pods pending and %d running (%d calls after %d warm-up; load average %.2f"
                            + " before, %.2f after):%n",
                    PENDING, RUNNING, allocations, warmUp, loadBefore, loadAfter);
            System.out.printf(
                    "  %-12s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms%n",
                    "elastic-gpu", pct(agentNanos, 50), pct(agentNanos, 99), pct(agentNanos, 100));
            System.out.printf(
                    "  %-12s p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms%n",
                    "echo plugin", pct(echoNanos, 50), pct(echoNanos, 99), pct(echoNanos, 100));
            System.out.printf(
                    "  p99 %.1fx echo; target p99 < 5 ms: %s%n",
                    pct(agentNanos, 99) / pct(echoNanos, 99), pct(agentNanos, 99) < 5 ? "met" : "NOT met");
            kubelet.forgetAll();
            long[] footprint = footprint(dir, kubelet);
            Result r = new Result(
                    allocations,
                    warmUp,
                    PENDING,
                    RUNNING,
                    BLOCK_MIB,
                    Runtime.getRuntime().availableProcessors(),
                    loadBefore,
                    loadAfter,
                    pct(agentNanos, 50),
                    pct(agentNanos, 99),
                    pct(agentNanos, 100),
                    pct(echoNanos, 50),
                    pct(echoNanos, 99),
                    pct(echoNanos, 100),
                    pct(agentNanos, 99) / pct(echoNanos, 99),
                    footprint[0],
                    footprint[1]);
            if (json != null) {
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), r);
            }
        }
    }

    /** The 1-minute load average, as /proc/loadavg has it; -1 where there is none. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
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

    /**
     * Keeps {@link #PENDING} pods pending; kubelet admits them in random order, handing each the lowest free memory
     * blocks of its planned card, as kubelet hands out only ids no live container holds; old running pods are deleted
     * as it goes, {@link #RUNNING} are left. The warm-up and the measured calls go on from one state. Each call is
     * also sent to the echo plugin, before the agent's every other call.
     */
    private static final class Workload {

        private final FakeKubelet kubelet;
        private final MemoryCluster cluster;
        private final Hardware hw;
        private final Random random = new Random(42);
        private final List<NodePod> pending = new ArrayList<>();
        private final Deque<NodePod> running = new ArrayDeque<>();
        private final Map<NodePod, List<Integer>> blocks = new HashMap<>();
        private final BitSet[] used = new BitSet[CARDS]; // the blocks live containers hold, per card
        private int serial;

        Workload(FakeKubelet kubelet, MemoryCluster cluster, Hardware hw) {
            this.kubelet = kubelet;
            this.cluster = cluster;
            this.hw = hw;
            Arrays.setAll(used, c -> new BitSet());
        }

        /** @return the agent's and the echo's latencies, nanoseconds, one per call */
        long[][] admit(int calls, String resource) {
            long[] nanos = new long[calls];
            long[] echoNanos = new long[calls];
            for (int i = 0; i < calls; i++) {
                while (pending.size() < PENDING) {
                    NodePod p = pod("p" + serial, serial++, hw);
                    pending.add(p);
                    cluster.pods.add(p);
                }
                NodePod p = pending.remove(random.nextInt(pending.size()));
                int card = cardOf(p);
                List<String> ids = new ArrayList<>();
                List<Integer> taken = new ArrayList<>();
                for (int b = used[card].nextClearBit(0);
                        taken.size() < 4096 / BLOCK_MIB;
                        b = used[card].nextClearBit(b + 1)) {
                    taken.add(b);
                    ids.add(hw.gpus().get(card).uuid() + "::m" + b);
                }
                taken.forEach(used[card]::set);
                blocks.put(p, taken);
                if (i % 2 == 1) {
                    echoNanos[i] = timed(() -> kubelet.call(ECHO, ids));
                }
                nanos[i] = timed(() -> kubelet.call(resource, ids));
                kubelet.record(resource, new ContainerKey(p.namespace(), p.name(), "main"), ids);
                if (i % 2 == 0) {
                    echoNanos[i] = timed(() -> kubelet.call(ECHO, ids));
                }
                running.add(p);
                if (running.size() > RUNNING) {
                    NodePod gone = running.removeFirst();
                    cluster.pods.remove(gone);
                    blocks.remove(gone).forEach(used[cardOf(gone)]::clear);
                    kubelet.forget(new ContainerKey(gone.namespace(), gone.name(), "main"));
                }
            }
            return new long[][] {nanos, echoNanos};
        }

        private static int cardOf(NodePod p) {
            return p.plan().orElseThrow().containers().get("main").getFirst().card();
        }
    }

    private static long timed(Runnable call) {
        long t0 = System.nanoTime();
        call.run();
        return System.nanoTime() - t0;
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

    /**
     * Starts {@link AgentFootprint} as its own JVM with the agent's production heap settings.
     *
     * @return milliseconds from launch to all plugins registered, and resident MiB 10 s later
     */
    private static long[] footprint(Path dir, FakeKubelet kubelet) throws Exception {
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
            return new long[] {Math.round(startMs), rss / 1024};
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
