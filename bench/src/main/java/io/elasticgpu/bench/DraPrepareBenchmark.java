package io.elasticgpu.bench;

import static io.elasticgpu.bench.NodeAgentBenchmark.pct;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.AllocatedClaim;
import io.elasticgpu.node.dra.CdiSpecs;
import io.elasticgpu.node.dra.Checkpoint;
import io.elasticgpu.node.dra.ClaimDevice;
import io.elasticgpu.node.dra.ClaimException;
import io.elasticgpu.node.dra.ClaimPreparation;
import io.elasticgpu.node.draplugin.DraPluginServer;
import io.elasticgpu.node.draplugin.DraPluginService;
import io.elasticgpu.node.draplugin.api.Claim;
import io.elasticgpu.node.draplugin.api.DRAPluginGrpc;
import io.elasticgpu.node.draplugin.api.Device;
import io.elasticgpu.node.draplugin.api.NodePrepareResourceResponse;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesResponse;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code bench/run dra-prepare [CLAIMS] [--json FILE]}: the DRA driver's {@code NodePrepareResources} and
 * {@code NodeUnprepareResources} latency per claim over its unix socket, as kubelet calls them, on 8 simulated A100
 * 80 GB cards with 60 claims prepared at any time (each 8 GiB and 10 % of a card, eight to a card): our service with
 * its
 * checkpoint and CDI specs on disk, the claims' allocations read from memory (the API server's GET is not ours).
 * Baseline: a DRA plugin on the same gRPC stack that answers every call with one fixed device.
 */
final class DraPrepareBenchmark {

    /** What one run measured, milliseconds; the JSON. */
    record Result(
            int claims,
            double prepareP50Ms,
            double prepareP99Ms,
            double unprepareP50Ms,
            double unprepareP99Ms,
            double echoP50Ms,
            double echoP99Ms,
            double p99VersusEcho) {}

    private static final int HELD = 60;
    private static final String NODE = "bench-node";

    private DraPrepareBenchmark() {}

    static void run(int claims, Path json) throws Exception {
        try (TempDirectory temp = new TempDirectory("egpu-bench-dra")) {
            run(claims, json, temp.path());
        }
    }

    private static void run(int claims, Path json, Path dir) throws Exception {
        Hardware hw = NodeAgentBenchmark.eightCards();
        Map<String, List<ClaimDevice>> allocated = new ConcurrentHashMap<>(); // what the API server would say
        System.out.printf(
                "DRA prepare, %d simulated %s cards, %d claims held; %d cores%n",
                hw.gpus().size(),
                hw.gpus().getFirst().model(),
                HELD,
                Runtime.getRuntime().availableProcessors());
        ClaimPreparation preparation = new ClaimPreparation(
                ref -> Optional.ofNullable(allocated.get(ref.uid()))
                        .map(AllocatedClaim::of)
                        .orElseThrow(() -> new ClaimException("claim " + ref + ": not found")),
                Checkpoint.open(dir.resolve("plugin/checkpoint.json")),
                new CdiSpecs(dir.resolve("cdi")),
                hw,
                new DeviceCatalog(hw, List.of()),
                new ContainerEnvironment(1024),
                NODE);
        DraPluginServer server = DraPluginServer.start(
                "gpu.elasticgpu.io", dir.resolve("plugin"), dir.resolve("registry"), new DraPluginService(preparation));
        Server echo = UnixSockets.serve(dir.resolve("echo.sock"), new Echo());
        try {
            ManagedChannel ours = UnixSockets.connect(dir.resolve("plugin/dra.sock"));
            ManagedChannel theirs = UnixSockets.connect(dir.resolve("echo.sock"));
            cycle(DRAPluginGrpc.newBlockingStub(ours), allocated, claims / 4, 0); // warm-up
            long[][] nanos = cycle(DRAPluginGrpc.newBlockingStub(ours), allocated, claims, claims);
            cycle(DRAPluginGrpc.newBlockingStub(theirs), allocated, claims / 4, 10 * claims);
            long[] echoNanos = cycle(DRAPluginGrpc.newBlockingStub(theirs), allocated, claims, 20 * claims)[0];
            Result r = new Result(
                    claims,
                    pct(nanos[0], 50),
                    pct(nanos[0], 99),
                    pct(nanos[1], 50),
                    pct(nanos[1], 99),
                    pct(echoNanos, 50),
                    pct(echoNanos, 99),
                    pct(nanos[0], 99) / pct(echoNanos, 99));
            print(r);
            if (json != null) {
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), r);
            }
            ours.shutdownNow();
            theirs.shutdownNow();
        } finally {
            echo.shutdownNow();
            server.close();
        }
    }

    private static void print(Result r) {
        System.out.printf("%nper claim, %d calls each after %d warm-up:%n", r.claims(), r.claims() / 4);
        System.out.printf(
                "  %-28s p50 %6.2f ms  p99 %6.2f ms%n", "elastic-gpu prepare", r.prepareP50Ms(), r.prepareP99Ms());
        System.out.printf(
                "  %-28s p50 %6.2f ms  p99 %6.2f ms%n",
                "elastic-gpu unprepare", r.unprepareP50Ms(), r.unprepareP99Ms());
        System.out.printf(
                "  %-28s p50 %6.2f ms  p99 %6.2f ms%n", "echo plugin (prepare)", r.echoP50Ms(), r.echoP99Ms());
        System.out.printf(
                "  prepare p99 %.1fx echo; target p99 < 10 ms: %s%n",
                r.p99VersusEcho(), r.prepareP99Ms() < 10 ? "met" : "NOT met");
    }

    /**
     * Prepares {@code calls} claims one per call, unpreparing the oldest once {@link #HELD} are prepared, so cards
     * stay shared as on a busy node. Answers the prepare and the unprepare latencies, nanoseconds.
     */
    private static long[][] cycle(
            DRAPluginGrpc.DRAPluginBlockingStub dra, Map<String, List<ClaimDevice>> allocated, int calls, int first) {
        long[] prepare = new long[calls];
        long[] unprepare = new long[calls];
        Deque<Claim> held = new ArrayDeque<>();
        int unprepared = 0;
        for (int i = 0; i < calls; i++) {
            String uid = "uid-" + (first + i);
            int card = (first + i) % NodeAgentBenchmark.CARDS;
            allocated.put(
                    uid, List.of(new ClaimDevice("gpu", "gpu-" + card, card, 8192, 100, Optional.of("share-" + uid))));
            Claim claim = Claim.newBuilder()
                    .setNamespace("bench")
                    .setName("claim-" + (first + i))
                    .setUid(uid)
                    .build();
            long t0 = System.nanoTime();
            NodePrepareResourcesResponse answer = dra.nodePrepareResources(
                    NodePrepareResourcesRequest.newBuilder().addClaims(claim).build());
            prepare[i] = System.nanoTime() - t0;
            String error = answer.getClaimsOrThrow(uid).getError();
            if (!error.isEmpty()) {
                throw new IllegalStateException("prepare of " + uid + " failed: " + error);
            }
            held.add(claim);
            if (held.size() > HELD) {
                Claim gone = held.removeFirst();
                long t1 = System.nanoTime();
                dra.nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder()
                        .addClaims(gone)
                        .build());
                unprepare[unprepared++] = System.nanoTime() - t1;
                allocated.remove(gone.getUid());
            }
        }
        held.forEach(c -> dra.nodeUnprepareResources(
                NodeUnprepareResourcesRequest.newBuilder().addClaims(c).build()));
        return new long[][] {prepare, Arrays.copyOf(unprepare, Math.max(1, unprepared))};
    }

    /** The baseline: a DRA plugin that answers every prepare with one fixed device and every unprepare with success. */
    private static final class Echo extends DRAPluginGrpc.DRAPluginImplBase {
        @Override
        public void nodePrepareResources(
                NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
            NodePrepareResourcesResponse.Builder b = NodePrepareResourcesResponse.newBuilder();
            request.getClaimsList()
                    .forEach(c -> b.putClaims(
                            c.getUid(),
                            NodePrepareResourceResponse.newBuilder()
                                    .addDevices(Device.newBuilder()
                                            .addRequestNames("gpu")
                                            .setPoolName(NODE)
                                            .setDeviceName("gpu-0")
                                            .addCdiDeviceIds("elasticgpu.io/gpu=echo"))
                                    .build()));
            out.onNext(b.build());
            out.onCompleted();
        }

        @Override
        public void nodeUnprepareResources(
                NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
            out.onNext(NodeUnprepareResourcesResponse.getDefaultInstance());
            out.onCompleted();
        }
    }
}
