package io.elasticgpu.bench.gpu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.node.discovery.DiscoveryException;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.isolation.IsolationConfig.Layout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code bench/run gpu-isolation}: the node agent's own isolation and usage code on a real GPU, with real NVML and real
 * MPS daemons, and CUDA processes ({@code bench/gpu/probe.py}) standing for two pods that share card 0 (pod A: 20 GiB
 * and 30 % in one process; pod B: 40 GiB and 60 % in two), each process in its pod's cgroup ({@link PodCgroups}) and
 * given what its container would be given. First the baselines, with no MPS: one process with the card to itself,
 * and both pods' processes at once. Then each MPS layout side by side ({@link LayoutRun}: per-share, per-card, v3
 * where the driver has it). Every step has a timeout and records its failure and goes on; the JSON is written (and
 * printed) whatever happens, also when the JVM is ended by a signal, with every figure also in {@code checks}
 * ({@link Checks}). What an earlier run left is ended and removed first ({@link Leftovers}).
 */
public final class GpuIsolationCheck {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final List<Layout> LAYOUTS = List.of(Layout.PER_SHARE, Layout.PER_CARD, Layout.V3);

    /**
     * What the check is given.
     *
     * @param python     a python3 with PyTorch
     * @param probe      {@code bench/gpu/probe.py}
     * @param control    {@code nvidia-cuda-mps-control}
     * @param nvidiaSmi  {@code nvidia-smi} (the v3 layout's memory limits per cgroup)
     * @param root       where the check's MPS daemons keep their pipes, logs and /dev/shm, and its start files
     * @param cgroupRoot the cgroup v2 hierarchy of the fake pods, or {@code auto}
     * @param layouts    the layouts to measure, as {@code --mps-layout} spells them
     * @param budget     no step starts after this much time
     * @param json       where the JSON goes besides standard output, or null
     */
    public record Options(
            Path python,
            Path probe,
            Path control,
            Path nvidiaSmi,
            Path root,
            String cgroupRoot,
            List<String> layouts,
            Duration budget,
            Path json) {}

    /** Set when the JVM is being ended: steps are skipped and no process starts, while the hook cleans up. */
    static volatile boolean stopping;

    private final Options options;
    private final Report report;
    private final Map<String, Object> layouts = Collections.synchronizedMap(new LinkedHashMap<>());
    private final AtomicBoolean written = new AtomicBoolean();
    private volatile LayoutRun current;
    private volatile PodCgroups cgroups;

    private GpuIsolationCheck(Options options) {
        this.options = options;
        this.report = new Report("run", System.nanoTime() + options.budget().toNanos());
    }

    /**
     * Runs the check, writes its JSON to {@link Options#json} (in any case: a failure outside every step is its
     * {@code fatal}) and prints it.
     *
     * @return 0, 3 when there is no NVML, 1 when the run could not go on
     */
    public static int run(Options options, PrintStream out) {
        GpuIsolationCheck check = new GpuIsolationCheck(options);
        Thread hook = new Thread(() -> {
            stopping = true; // no step and no process starts from now on
            if (!check.written.get()) {
                check.report.put("fatal", "the JVM was ended (a signal, the outer timeout) before the check finished");
                check.write();
                check.cleanUp(); // best effort, while the run's own threads may still be at work
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        int rc = 0;
        try {
            check.measure();
        } catch (DiscoveryException e) {
            check.report.put("fatal", Report.describe(e));
            rc = 3;
        } catch (Exception | Error e) {
            check.report.put("fatal", Report.describe(e));
            rc = 1;
        } finally {
            out.println(check.write());
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already: the hook sees it written
            }
        }
        return rc;
    }

    /** Only ends and removes what an earlier run left under {@code root}; returns what it did, as JSON. */
    public static String clean(Path root, Path control, String cgroupRoot) throws IOException {
        return JSON.writeValueAsString(Leftovers.before(root, control, cgroupRoot));
    }

    private void measure() throws Exception {
        report.put("date", Instant.now().toString());
        for (String f : List.of(
                "device",
                "driver",
                "cuda",
                "torch",
                "computeMode",
                "memoryMib",
                "podCgroups",
                "podCgroupsReason",
                "unlimitedTflops",
                "noMpsTogetherTflops")) {
            report.put(f, null);
        }
        report.put("layouts", layouts);
        for (Layout l : LAYOUTS) {
            layouts.put(l.flag(), null);
        }
        report.put("root", options.root().toString());
        report.put("cleanedBefore", Leftovers.before(options.root(), options.control(), options.cgroupRoot()));
        cgroups = PodCgroups.create(options.cgroupRoot(), options.root().resolve(Leftovers.CGROUPS));
        report.put("podCgroups", cgroups.available());
        report.put("podCgroupsReason", cgroups.reason());
        report.put("cgroupRoot", cgroups.base() == null ? null : cgroups.base().toString());
        report.put("podCgroupPaths", cgroups.describe());
        Probes probes = new Probes(options.python(), options.probe(), options.root());
        try (NvmlBackend nvml = NvmlBackend.open()) {
            Hardware hw = nvml.discover();
            Gpu card = hw.gpus().getFirst();
            report.put("device", card.model());
            report.put("driver", hw.driverVersion());
            report.put("memoryMib", card.memoryMib());
            report.put("computeMode", nvml.computeMode(card.index()).toString());
            // MIG as the agent reads it (read only: the check never changes the MIG mode)
            report.put("migEnabled", card.mig().enabled());
            report.put("migPending", card.mig().pending());
            report.put(
                    "migDevices",
                    card.mig().devices().stream()
                            .map(d -> d.profile() + " " + d.uuid())
                            .toList());
            report.step("versions", () -> {
                try (Probe x = probes.start("versions", Probes.Where.HOST, Map.of(), "versions")) {
                    JsonNode v = x.await("versions", Duration.ofSeconds(90));
                    report.put("torch", v.path("torch").asText());
                    report.put("cuda", v.path("cuda").asText());
                }
            });
            report.step(
                    "unlimited",
                    () -> report.put(
                            "unlimitedTflops", plain(probes, List.of(new Probes.Where(null, null)), "unlimited")));
            report.step("noMpsTogether", () -> {
                List<Probes.Where> where = new ArrayList<>();
                for (Pod p : Pod.BOTH) {
                    for (int i = 0; i < p.processes(); i++) {
                        where.add(new Probes.Where(cgroups.container(p), null));
                    }
                }
                report.put("noMpsTogetherTflops", plain(probes, where, "noMpsTogether"));
            });
            Rig rig = new Rig(
                    nvml,
                    hw,
                    card,
                    probes,
                    cgroups,
                    options.control(),
                    options.nvidiaSmi(),
                    options.root(),
                    report.number("unlimitedTflops"));
            int left = (int) LAYOUTS.stream()
                    .filter(l -> options.layouts().contains(l.flag()))
                    .count();
            for (Layout l : LAYOUTS) {
                if (!options.layouts().contains(l.flag())) {
                    layouts.put(l.flag(), map("mode", l.flag(), "skipped", "not asked (--layouts)"));
                    continue;
                }
                // each layout gets its part of the time left, so that one whose probes hang leaves the others theirs
                long now = System.nanoTime();
                current = new LayoutRun(rig, l, now + Math.max(0, report.deadlineNanos() - now) / left--);
                layouts.put(l.flag(), current.run());
                current = null;
            }
        } finally {
            report.put("cleanedAfter", cleanUp());
        }
    }

    /** Ends the run's probes and MPS processes, unmounts what it mounted, removes the fake pods' cgroups. */
    private Map<String, Object> cleanUp() {
        Map<String, Object> out = Leftovers.ended(options.root(), options.control());
        PodCgroups c = cgroups;
        if (c != null) {
            c.remove();
        }
        return out;
    }

    /** The summed matmul rate of plain processes (no MPS), one where each of {@code where} says, at once. */
    private static double plain(Probes probes, List<Probes.Where> where, String step) {
        List<Probe> running = new ArrayList<>();
        Path go = probes.startFile();
        try {
            for (int i = 0; i < where.size(); i++) {
                running.add(probes.start(
                        step + "/" + i,
                        where.get(i),
                        Map.of("START_FILE", go.toString()),
                        "matmul",
                        Double.toString(Rig.MATMUL_SECONDS),
                        "0"));
            }
            Probes.startTogether(running, go, Rig.LINE);
            double sum = 0;
            for (Probe x : running) {
                JsonNode m = x.await("matmul", Rig.LINE);
                if (m.has("error")) {
                    throw new IllegalStateException(
                            "a plain process failed: " + m.path("error").asText());
                }
                sum += m.path("tflops").asDouble();
            }
            return round(sum, 1);
        } finally {
            running.forEach(Probe::close);
        }
    }

    /** Writes the JSON (with {@code checks}) to the file and returns it; at most one writer at a time. */
    private synchronized String write() {
        Map<String, Object> json = report.json();
        LayoutRun running = current;
        if (running != null && layouts.get(running.layout.flag()) == null) {
            Map<String, Object> partial = running.report.json();
            partial.put("pods", running.pods);
            Map<String, Object> all = new LinkedHashMap<>(layouts);
            all.put(running.layout.flag(), partial);
            json.put("layouts", all);
        }
        String text;
        try {
            json.put("checks", Checks.of(json));
        } catch (RuntimeException e) {
            json.put("checks", map("error", Report.describe(e)));
        }
        try {
            text = JSON.writeValueAsString(json);
        } catch (IOException | RuntimeException e) {
            text = "{\"fatal\": %s, \"writeError\": %s}"
                    .formatted(quote(String.valueOf(json.get("fatal"))), quote(Report.describe(e)));
        }
        if (options.json() != null) {
            try {
                Files.writeString(options.json(), text + "\n");
            } catch (IOException e) {
                System.err.println("gpu-isolation: cannot write " + options.json() + ": " + e.getMessage());
            }
        }
        written.set(true);
        return text;
    }

    private static String quote(String s) {
        try {
            return new ObjectMapper().writeValueAsString(s);
        } catch (IOException e) {
            return "\"?\"";
        }
    }

    /** An ordered map of {@code key, value, ...}; values may be null. */
    static Map<String, Object> map(Object... kv) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put((String) kv[i], kv[i + 1]);
        }
        return out;
    }

    static double round(double v, int places) {
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }
}
