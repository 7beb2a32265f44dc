package io.elasticgpu.bench.gpu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.isolation.MpsControl;
import io.elasticgpu.node.isolation.MpsDirs;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.usage.UsageMonitor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench/run gpu-isolation}: the node agent's own isolation and usage code on a real GPU, with real NVML and
 * real MPS daemons, and CUDA processes ({@code bench/gpu/probe.py}) standing for two pods that share card 0:
 * <ul>
 *     <li>pod A: 20 GiB and 30 %, one process; pod B: 40 GiB and 60 %, two processes (20 GiB and 30 % each);</li>
 *     <li>what each process sees and may allocate, with its environment asking for the whole card;</li>
 *     <li>each pod's matmul rate alone and both together, against one process with the card to itself;</li>
 *     <li>a third process of pod B, beyond its count, which the agent ends;</li>
 *     <li>pod A's daemon killed: the time until the agent has it back, and the limits of the next process;</li>
 *     <li>the agent restarted while pod A runs: the daemon it finds is the one it keeps;</li>
 *     <li>the memory the agent reads per pod against what the processes hold;</li>
 *     <li>the other designs, measured the same way ({@link OtherDesigns}): one MPS daemon for the card, limits in each
 *     client's environment; and no MPS.</li>
 * </ul>
 * Writes one JSON object. Every probe has a timeout; the run takes about five minutes on an H100.
 * It is over 400 lines because it is one scripted experiment, step after step in the order its JSON reports them.
 */
public final class GpuIsolationCheck {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** How long any probe may take to say its next line. */
    static final Duration PROBE = Duration.ofSeconds(120);
    /** How long each probe multiplies matrices. */
    static final double MATMUL_SECONDS = 10;

    /** A pod of the check: its share on card 0 and how many processes it runs. */
    record Pod(String name, long memoryMib, int percent, int processes) {
        long perProcessMib() {
            return memoryMib / processes;
        }

        int perProcessPercent() {
            return percent / processes;
        }
    }

    static final Pod A = new Pod("pod-a", 20480, 30, 1);
    static final Pod B = new Pod("pod-b", 40960, 60, 2);

    private final Probes probes;
    private final Path control;
    private final Path root;
    private final Map<String, Object> out = new LinkedHashMap<>();
    private final Map<String, Map<String, Object>> pods = new LinkedHashMap<>();

    private GpuIsolationCheck(Path python, Path probe, Path control, Path root) {
        this.probes = new Probes(python, probe, root);
        this.control = control;
        this.root = root;
    }

    /**
     * Runs the check and returns what it measured, one JSON object.
     *
     * @param python  a python3 with PyTorch
     * @param probe   {@code bench/gpu/probe.py}
     * @param control {@code nvidia-cuda-mps-control}
     * @param root    where the check's MPS daemons keep their pipes, logs and /dev/shm
     * @throws io.elasticgpu.node.discovery.DiscoveryException when there is no NVML
     */
    public static String run(Path python, Path probe, Path control, Path root)
            throws IOException, InterruptedException {
        return JSON.writeValueAsString(new GpuIsolationCheck(python, probe, control, root).measure());
    }

    private Map<String, Object> measure() throws IOException, InterruptedException {
        out.put("date", Instant.now().toString());
        try (NvmlBackend nvml = NvmlBackend.open()) {
            Hardware hw = nvml.discover();
            Gpu card = hw.gpus().getFirst();
            out.put("device", card.model());
            out.put("driver", hw.driverVersion());
            out.put("memoryMib", card.memoryMib());
            out.put("computeMode", nvml.computeMode(0).toString());
            step("versions", () -> {
                try (Probe x = probes.start("versions", null, Map.of(), "versions")) {
                    JsonNode v = x.await("versions", PROBE);
                    out.put("torch", v.path("torch").asText());
                    out.put("cuda", v.path("cuda").asText());
                }
            });
            step("unlimited", () -> out.put("unlimitedTflops", alone(null, null, 1)));
            double unlimited = ((Number) out.get("unlimitedTflops")).doubleValue();

            pods.put(
                    A.name(),
                    new LinkedHashMap<>(
                            Map.of("memoryMib", A.memoryMib(), "percent", A.percent(), "processes", A.processes())));
            pods.put(
                    B.name(),
                    new LinkedHashMap<>(
                            Map.of("memoryMib", B.memoryMib(), "percent", B.percent(), "processes", B.processes())));
            out.put("pods", pods);
            IsolationConfig config = IsolationConfig.mps(control, root);
            List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
            out.put("events", events);
            MpsIsolation mps = MpsIsolation.start(
                    config,
                    hw,
                    nvml,
                    InstantSource.system(),
                    (s, reason, message) -> events.add("%s %s: %s".formatted(reason, s.holder(), message)));
            try {
                MpsDirs a = share(mps, card, A);
                MpsDirs b = share(mps, card, B);
                step("limits", () -> {
                    limits(nvml, A, a);
                    limits(nvml, B, b);
                });
                step("alone", () -> {
                    pods.get(A.name()).put("aloneTflops", alone(a, A, A.processes()));
                    pods.get(B.name()).put("aloneTflops", alone(b, B, B.processes()));
                    for (Pod p : List.of(A, B)) {
                        double t = ((Number) pods.get(p.name()).get("aloneTflops")).doubleValue();
                        pods.get(p.name()).put("aloneFractionOfUnlimited", round(t / unlimited, 3));
                        pods.get(p.name()).put("aloneWithinSharePlus10", t / unlimited <= p.percent() / 100.0 + 0.10);
                    }
                });
                step("together", () -> together(mps, nvml, hw, a, b, unlimited));
                step("extraProcess", () -> extraProcess(nvml, b));
                step("daemonRestart", () -> daemonRestart(mps, a));
                step("agentRestart", () -> agentRestart(mps, config, hw, nvml, a));
            } finally {
                mps.close();
                mps.daemons().retain(d -> false); // the check's daemons end with it
            }
            OtherDesigns others = new OtherDesigns(probes, control, root.resolve("shared-daemon"));
            step("sharedDaemon", () -> out.put("sharedDaemonTogetherTflops", others.sharedDaemon()));
            step("noMps", () -> out.put("noMpsTogetherTflops", others.noMps()));
        }
        out.put("checks", checks());
        return out;
    }

    private interface Step {
        void run() throws Exception;
    }

    /** One part of the check; a failure is recorded and the rest still runs. */
    private void step(String name, Step step) {
        long t = System.nanoTime();
        try {
            step.run();
        } catch (Exception | AssertionError e) {
            @SuppressWarnings("unchecked")
            Map<String, String> errors =
                    (Map<String, String>) out.computeIfAbsent("errors", k -> new LinkedHashMap<>());
            errors.put(name, e.toString());
            System.err.println("gpu-isolation: step " + name + " failed: " + e);
        }
        System.err.printf("gpu-isolation: step %s took %.1f s%n", name, (System.nanoTime() - t) / 1e9);
    }

    private static MpsDirs share(MpsIsolation mps, Gpu card, Pod p) {
        return mps.share(
                        MpsIsolation.deviceKey("gpu-check " + p.name()),
                        "gpu-check/" + p.name() + "/main",
                        p.name(),
                        List.of(new Share(0, card.uuid(), p.percent() * 10, p.memoryMib())),
                        p.processes())
                .orElseThrow();
    }

    /**
     * What one process of {@code p} sees and may allocate, with its environment asking for the whole card. What it
     * sees as its limit is cudaMemGetInfo's free memory plus what NVML says it already holds (its context).
     */
    private void limits(NvmlBackend nvml, Pod p, MpsDirs dirs) {
        long limit = p.perProcessMib();
        try (Probe x = probes.start(
                p.name() + "-limits",
                dirs,
                Probes.env(dirs, true),
                "limits",
                Long.toString(limit - 2048),
                Long.toString(limit + 1024))) {
            JsonNode start = x.await("start", PROBE);
            long context = nvml.processes(0).stream()
                    .filter(g -> g.pid() == Probe.pidOf(start))
                    .mapToLong(g -> g.usedMemoryMib())
                    .findFirst()
                    .orElse(0);
            JsonNode ok = x.await("ok", PROBE);
            JsonNode over = x.await("over", PROBE);
            long seen = start.path("freeMib").asLong() + Math.max(0, context);
            double seenErrorPct = round(100.0 * Math.abs(seen - limit) / limit, 2);
            Map<String, Object> r = pods.get(p.name());
            r.put("perProcessLimitMib", limit);
            r.put("seenFreeMib", start.path("freeMib").asLong());
            r.put("contextMib", context);
            r.put("seenLimitMib", seen);
            r.put("seenErrorPct", seenErrorPct);
            r.put("allocUnderLimitOk", ok.path("allocated").asBoolean());
            r.put("allocOverLimitRefused", !over.path("allocated").asBoolean());
            r.put(
                    "memoryLimitHeld",
                    seenErrorPct <= 1.0
                            && ok.path("allocated").asBoolean()
                            && !over.path("allocated").asBoolean());
            // The process's environment asked for 100 % and the whole card: it still sees and gets only its share.
            r.put(
                    "envOverrideRefused",
                    seen < limit * 1.01 && !over.path("allocated").asBoolean());
            x.finish(PROBE);
        }
    }

    /** The summed matmul rate of {@code processes} processes of one pod (or of plain processes without a share). */
    private double alone(MpsDirs dirs, Pod p, int processes) {
        List<Probe> running = new ArrayList<>();
        Path go = probes.startFile();
        try {
            for (int i = 0; i < processes; i++) {
                Map<String, String> env = Probes.env(dirs, false);
                env.put("START_FILE", go.toString());
                running.add(probes.start(
                        (p == null ? "plain" : p.name()) + "-" + i,
                        dirs,
                        env,
                        "matmul",
                        Double.toString(MATMUL_SECONDS),
                        "0"));
            }
            Probes.startTogether(running, go);
            double sum = 0;
            for (Probe x : running) {
                sum += x.await("matmul", PROBE).path("tflops").asDouble();
            }
            return round(sum, 1);
        } finally {
            running.forEach(Probe::close);
        }
    }

    /**
     * Both pods at once, each process holding memory; the agent reads each pod's memory while they multiply. Pod A's
     * process holds 16 GiB of its 20; each of pod B's two holds 16 GiB of its 20.
     */
    private void together(MpsIsolation mps, NvmlBackend nvml, Hardware hw, MpsDirs a, MpsDirs b, double unlimited) {
        List<Probe> running = new ArrayList<>();
        Path go = probes.startFile();
        try {
            Map<String, List<Probe>> byPod = new LinkedHashMap<>();
            for (Pod p : List.of(A, B)) {
                for (int i = 0; i < p.processes(); i++) {
                    Map<String, String> env = Probes.env(p == A ? a : b, false);
                    env.put("START_FILE", go.toString());
                    Probe x = probes.start(
                            p.name() + "-together-" + i,
                            p == A ? a : b,
                            env,
                            "matmul",
                            Double.toString(MATMUL_SECONDS),
                            "16384");
                    running.add(x);
                    byPod.computeIfAbsent(p.name(), k -> new ArrayList<>()).add(x);
                }
            }
            Map<String, Long> held = new LinkedHashMap<>(); // MiB each pod's processes hold, as CUDA tells each of them
            Map<String, Boolean> allocated = new LinkedHashMap<>();
            for (Pod p : List.of(A, B)) {
                long sum = 0;
                boolean all = true;
                for (Probe x : byPod.get(p.name())) {
                    JsonNode h = x.await("holding", PROBE);
                    sum += p.perProcessMib()
                            - h.path("freeMib").asLong(); // under MPS, free = the process's limit - what it holds
                    all &= h.path("allocated").asBoolean();
                }
                held.put(p.name(), sum);
                allocated.put(p.name(), all);
            }
            mps.round(); // the agent's loop learns the processes of each share (it would within a second anyway)
            NodeUsage usage = new UsageMonitor(
                            nvml, hw, Path.of("/proc"), List::of, mps::owners, InstantSource.system())
                    .sample()
                    .usage();
            Probes.touch(go);
            double total = 0;
            for (Pod p : List.of(A, B)) {
                double t = 0;
                for (Probe x : byPod.get(p.name())) {
                    t += x.await("matmul", PROBE).path("tflops").asDouble();
                }
                total += t;
                long read = usage.containers().stream()
                        .filter(u -> u.pod().equals(p.name()))
                        .mapToLong(NodeUsage.ContainerUsage::memoryMib)
                        .sum();
                Map<String, Object> r = pods.get(p.name());
                r.put("togetherTflops", round(t, 1));
                r.put("togetherFractionOfUnlimited", round(t / unlimited, 3));
                r.put("heldMib", held.get(p.name()));
                r.put("heldAllocated", allocated.get(p.name()));
                r.put("usageReadMib", read);
                r.put(
                        "usageErrorPct",
                        held.get(p.name()) == 0
                                ? null
                                : round(100.0 * Math.abs(read - held.get(p.name())) / held.get(p.name()), 2));
                r.put("heldWithinShare", held.get(p.name()) <= p.memoryMib());
            }
            out.put("togetherTflops", round(total, 1));
            out.put("togetherFractionOfUnlimited", round(total / unlimited, 3));
            out.put("usageSample", usage);
        } finally {
            running.forEach(Probe::close);
        }
    }

    /** A third process of pod B, whose count is two: the agent ends the youngest within a few seconds. */
    private void extraProcess(NvmlBackend nvml, MpsDirs b) throws InterruptedException {
        List<Probe> running = new ArrayList<>();
        try {
            List<Long> firstTwo = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Probe x = probes.start("pod-b-hold-" + i, b, Probes.env(b, false), "hold", "4096", "60");
                firstTwo.add(Probe.pidOf(x.await("holding", PROBE)));
                running.add(x);
            }
            Probe third = probes.start("pod-b-third", b, Probes.env(b, false), "hold", "4096", "60");
            running.add(third);
            long pid = Probe.pidOf(third.await("holding", PROBE));
            long t = System.nanoTime();
            boolean ended = false;
            while (!ended && System.nanoTime() - t < Duration.ofSeconds(20).toNanos()) {
                // Ended: gone from NVML's processes on the card (terminate_client frees its memory) or dead.
                ended = !third.alive() || nvml.processes(0).stream().noneMatch(g -> g.pid() == pid);
                Thread.sleep(100);
            }
            out.put("extraProcessEnded", ended);
            out.put("extraProcessEndedSeconds", round((System.nanoTime() - t) / 1e9, 1));
            out.put(
                    "firstTwoStillRunning",
                    running.get(0).alive()
                            && running.get(1).alive()
                            && nvml.processes(0).stream()
                                            .filter(g -> firstTwo.contains((long) g.pid()))
                                            .count()
                                    == 2);
        } finally {
            running.forEach(Probe::close);
        }
    }

    /** Pod A's daemon killed: seconds until the agent's loop has one running again, then a new process's limits. */
    private void daemonRestart(MpsIsolation mps, MpsDirs a) {
        long before = MpsControl.pid(a.pipe());
        ProcessHandle.of(before).ifPresent(ProcessHandle::destroyForcibly);
        long t = System.nanoTime();
        long after = -1;
        while (System.nanoTime() - t < Duration.ofSeconds(30).toNanos()) {
            long now = MpsControl.pid(a.pipe());
            if (now > 0
                    && now != before
                    && ProcessHandle.of(now).map(ProcessHandle::isAlive).orElse(false)) {
                after = now;
                break;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        out.put("daemonRestartSeconds", after > 0 ? round((System.nanoTime() - t) / 1e9, 2) : null);
        try (Probe x = probes.start(
                "pod-a-after-restart",
                a,
                Probes.env(a, true),
                "limits",
                Long.toString(A.perProcessMib() - 2048),
                Long.toString(A.perProcessMib() + 1024))) {
            long seen = x.await("start", PROBE).path("freeMib").asLong();
            boolean refused = !x.await("over", PROBE).path("allocated").asBoolean();
            out.put("afterRestartSeenFreeMib", seen);
            out.put("afterRestartLimitsHeld", seen < A.perProcessMib() * 1.01 && refused);
        }
    }

    /** The agent stops and starts again while pod A's process holds memory: the daemon found is the one kept. */
    private void agentRestart(MpsIsolation mps, IsolationConfig config, Hardware hw, NvmlBackend nvml, MpsDirs a) {
        try (Probe x = probes.start("pod-a-across-agent-restart", a, Probes.env(a, false), "hold", "4096", "8")) {
            x.await("holding", PROBE);
            long pid = MpsControl.pid(a.pipe());
            mps.close();
            MpsIsolation again =
                    MpsIsolation.start(config, hw, nvml, InstantSource.system(), MpsIsolation.Notices.NONE);
            try {
                again.round();
                out.put(
                        "agentRestartKeptDaemon",
                        again.daemons().daemons().stream().anyMatch(d -> d.pid() == pid)
                                && MpsControl.pid(a.pipe()) == pid);
                out.put("agentRestartDaemons", again.daemons().daemons().size());
                x.await("done", PROBE); // the process held on across the restart and finished normally
                out.put("agentRestartProcessFinished", true);
            } finally {
                again.close();
            }
        }
    }

    /** Each figure the issue asks for, true or false, from the numbers above. */
    private Map<String, Object> checks() {
        Map<String, Object> c = new LinkedHashMap<>();
        for (Pod p : List.of(A, B)) {
            Map<String, Object> r = pods.getOrDefault(p.name(), Map.of());
            c.put(p.name() + ".memoryLimitHeld", r.get("memoryLimitHeld"));
            c.put(p.name() + ".envOverrideRefused", r.get("envOverrideRefused"));
            c.put(p.name() + ".aloneWithinSharePlus10", r.get("aloneWithinSharePlus10"));
            c.put(p.name() + ".heldWithinShare", r.get("heldWithinShare"));
            Object err = r.get("usageErrorPct");
            c.put(p.name() + ".usageWithin5Pct", err instanceof Number n ? n.doubleValue() <= 5.0 : null);
        }
        Object fraction = out.get("togetherFractionOfUnlimited");
        c.put("togetherAtLeast90PctOfUnlimited", fraction instanceof Number n ? n.doubleValue() >= 0.9 : null);
        Object restart = out.get("daemonRestartSeconds");
        c.put("daemonBackWithin10s", restart instanceof Number n ? n.doubleValue() <= 10 : false);
        c.put("afterRestartLimitsHeld", out.get("afterRestartLimitsHeld"));
        c.put("agentRestartKeptDaemon", out.get("agentRestartKeptDaemon"));
        c.put("extraProcessEnded", out.get("extraProcessEnded"));
        return c;
    }

    static double round(double v, int places) {
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }
}
