package io.elasticgpu.bench.gpu;

import static io.elasticgpu.bench.gpu.GpuIsolationCheck.map;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.round;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.node.discovery.ProcessOwner;
import io.elasticgpu.node.isolation.DaemonProcess;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.isolation.IsolationConfig.Layout;
import io.elasticgpu.node.isolation.MpsAccess;
import io.elasticgpu.node.isolation.MpsDirs;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.isolation.MpsNamespaces;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.isolation.MpsWatchdog;
import io.elasticgpu.node.usage.UsageMonitor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One MPS layout measured: the agent's {@link MpsIsolation} started with it on card 0 (a fresh root, its loop every
 * {@link Rig#CHECK_EVERY}), pods A and B held through {@code share}, and the steps, each into the layout's JSON
 * object: the shares' figures ({@link ShareFigures}), hostile clients ({@link HostileClients}), the share's daemon
 * killed while a client computes, and the agent restarted while pod A runs. At the end the agent stops, every share is
 * released and whatever still runs under the layout's root is ended ({@link Leftovers#ended}).
 */
final class LayoutRun {

    private static final ObjectMapper JSON = new ObjectMapper();

    final Rig rig;
    final Layout layout;
    final Report report;
    final IsolationConfig config;
    final Map<String, Map<String, Object>> pods = new LinkedHashMap<>();
    final Map<Pod, MpsAccess> access = new ConcurrentHashMap<>();
    final List<Map<String, Object>> notices = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> bypasses = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> exceeded = new CopyOnWriteArrayList<>();
    volatile MpsIsolation mps;
    UsageMonitor usage;
    private final long started = System.nanoTime();
    private final MpsIsolation.Notices listener = new MpsIsolation.Notices() {
        @Override
        public void warn(MpsShare share, String reason, String message) {
            notices.add(map("t", seconds(), "reason", reason, "holder", share.holder(), "message", message));
        }

        @Override
        public void bypassed(MpsWatchdog.Bypass b) {
            bypasses.add(map(
                    "t",
                    seconds(),
                    "card",
                    b.card(),
                    "pid",
                    b.pid(),
                    "podUid",
                    b.owner().map(ProcessOwner::podUid).orElse(null),
                    "how",
                    b.how()));
        }
    };
    private String refused;

    /** @param deadlineNanos {@link System#nanoTime()} after which no step of this layout starts */
    LayoutRun(Rig rig, Layout layout, long deadlineNanos) {
        this.rig = rig;
        this.layout = layout;
        this.report = new Report(layout.flag(), deadlineNanos);
        this.config = IsolationConfig.mps(rig.control(), rig.root().resolve(layout.flag()))
                .withLayout(layout)
                .withTiming(Rig.CHECK_EVERY, Rig.CONTROL_TIMEOUT)
                .withMemory(Rig.CONTEXT_RESERVE_MIB, Rig.SHM_MIB)
                .withNvidiaSmi(rig.nvidiaSmi());
        for (Pod p : Pod.BOTH) {
            Map<String, Object> fields = Collections.synchronizedMap(new LinkedHashMap<>());
            fields.put("memoryMib", p.memoryMib());
            fields.put("percent", p.percent());
            fields.put("processes", p.processes());
            fields.put("perProcessLimitMib", p.limitMib(Rig.CONTEXT_RESERVE_MIB));
            pods.put(p.name(), fields);
        }
    }

    /** The layout's JSON object; every field is there, null where its step did not get to it. */
    Map<String, Object> run() {
        report.put("mode", layout.flag());
        try {
            if (!report.step("start", this::start)) {
                if (layout == Layout.V3 && refused != null) {
                    return map("mode", layout.flag(), "unavailable", refused);
                }
                return finish();
            }
            if (report.step("share", this::hold)) {
                ShareFigures figures = new ShareFigures(this);
                HostileClients hostile = new HostileClients(this);
                report.step("limits", figures::limits);
                report.step("alone", figures::alone);
                report.step("together", figures::together);
                Map<String, Report.Step> watchdog = new LinkedHashMap<>();
                watchdog.put("extraProcess", figures::extraProcess); // pod B's count
                watchdog.put("invisibleCard", hostile::invisibleCard); // pod A's memory: neither computes
                report.parallel(watchdog);
                report.step("envRaise", hostile::envRaise);
                report.step("controlPipe", hostile::controlPipe);
                report.step("bypass", hostile::bypass);
                report.step("daemonKill", this::daemonKill);
                report.step("agentRestart", this::agentRestart);
            }
        } catch (RuntimeException e) {
            report.error("layout", Report.describe(e));
        } finally {
            stop();
        }
        return finish();
    }

    private void start() {
        try {
            mps = MpsIsolation.start(config, rig.hardware(), rig.nvml(), InstantSource.system(), listener);
        } catch (IllegalArgumentException e) {
            refused = e.getMessage();
            throw e;
        }
        MpsIsolation.Status s = mps.status();
        report.put(
                "status", map("layout", s.layout().flag(), "memory", s.memory(), "bypass", s.bypass(), "why", s.why()));
        usage = new UsageMonitor(
                rig.nvml(),
                rig.hardware(),
                Path.of("/proc"),
                () -> rig.cgroups().available()
                        ? Pod.BOTH.stream().map(Pod::view).toList()
                        : List.of(),
                () -> mps.owners(),
                InstantSource.system());
    }

    /** Pods A and B held through the agent's {@code share}, as its device plugin would before kubelet is answered. */
    private void hold() {
        Map<String, Object> given = new LinkedHashMap<>();
        for (Pod p : Pod.BOTH) {
            MpsAccess a = mps.share(
                            p.key(), p.holder(), p.name(), p.shares(rig.card().uuid()), p.processes(), false)
                    .orElseThrow(() -> new IllegalStateException("the agent holds no share for " + p.name()));
            access.put(p, a);
            given.put(p.name(), map("mounts", a.mounts(), "env", a.env()));
        }
        report.put("access", given);
    }

    /** Where a process of {@code pod} runs: its container's cgroup, with what its container was given. */
    Probes.Where where(Pod pod) {
        MpsAccess a = access.get(pod);
        if (a == null) {
            throw new IllegalStateException(pod.name() + " holds no share: the share step failed");
        }
        return new Probes.Where(rig.cgroups().container(pod), a);
    }

    /** The MPS unit that serves {@code pod}: its share's, or in the per-card layout its card's. */
    MpsShare unit(Pod pod) {
        List<MpsShare> units = mps.servers().units();
        return units.stream()
                .filter(u -> u.key().equals(pod.key()))
                .findFirst()
                .or(() -> units.stream()
                        .filter(u -> u.cards().contains(rig.card().uuid()))
                        .findFirst())
                .orElseThrow(() -> new IllegalStateException("no MPS unit serves " + pod.name()));
    }

    /** The directories of the daemon that serves {@code unit}, as the agent keeps them on the host. */
    MpsDirs daemonDirs(MpsShare unit) {
        return mps.servers() instanceof MpsNamespaces v3
                ? v3.daemonDirs()
                : new MpsDirs(config.root().resolve(unit.key()));
    }

    /** The daemon the agent recorded for {@code unit} ({@code daemon.json}), if it runs. */
    Optional<DaemonProcess> daemon(MpsShare unit) {
        try {
            DaemonProcess d = JSON.readValue(daemonDirs(unit).daemonRecord().toFile(), DaemonProcess.class);
            return d.alive(Path.of("/proc"), rig.control().getFileName().toString())
                    ? Optional.of(d)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** When a process was first seen in NVML's list (-1: never) and when it ended, epoch milliseconds. */
    record End(long listedMillis, long endedMillis) {
        /** Seconds from its first CUDA work (NVML's list, else its {@code step} line, else its start) to its end. */
        double secondsAfter(Probe probe, String step) {
            long from = listedMillis >= 0 ? Math.min(listedMillis, probe.printedAt(step)) : probe.printedAt(step);
            return round(Math.max(0, endedMillis - from) / 1000.0, 2);
        }
    }

    /**
     * Waits until {@code probe} is ended: dead, or gone from NVML's processes on the card after NVML listed it (MPS's
     * terminate_client frees a client's memory; the process itself may live on). Null when neither within
     * {@code timeout}. {@code every} (or null) runs every half second meanwhile.
     */
    End awaitEnd(Probe probe, Duration timeout, Runnable every) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long listed = -1;
        for (int n = 0; System.nanoTime() < deadline; n++) {
            if (!probe.alive()) {
                return new End(listed, probe.exitEpochMillis());
            }
            boolean now = rig.onCard().containsKey(probe.pid());
            long t = System.currentTimeMillis();
            if (now && listed < 0) {
                listed = t;
            } else if (!now && listed >= 0) {
                return new End(listed, t);
            }
            if (every != null && n % 5 == 0) {
                every.run();
            }
            Thread.sleep(100);
        }
        return null;
    }

    /** The notices since {@code from} (an index into {@link #notices}) with {@code reason}, or all of them for null. */
    List<Map<String, Object>> noticesSince(int from, String reason) {
        List<Map<String, Object>> all = new ArrayList<>(notices);
        return all.subList(Math.min(from, all.size()), all.size()).stream()
                .filter(n -> reason == null || reason.equals(n.get("reason")))
                .toList();
    }

    double seconds() {
        return round((System.nanoTime() - started) / 1e9, 2);
    }

    /**
     * Pod A's MPS daemon (the v3 layout's one daemon) killed while pod A's process multiplies: what became of that
     * process, the seconds until the agent's loop had a daemon again, and whether a new process of pod A then runs
     * under the same limits (by allocation).
     */
    private void daemonKill() throws InterruptedException {
        MpsShare unit = unit(Pod.A);
        DaemonProcess before =
                daemon(unit).orElseThrow(() -> new IllegalStateException("pod A's MPS daemon is not running"));
        int from = notices.size();
        int caught = bypasses.size();
        Double restart = null;
        try (Probe x =
                rig.probes().start(layout.flag() + "/daemonKill/pod-a", where(Pod.A), Map.of(), "matmul", "6", "0")) {
            x.await("holding", Rig.LINE);
            Thread.sleep(1000); // well into its products
            ProcessHandle.of(before.pid()).ifPresent(ProcessHandle::destroyForcibly);
            long t = System.nanoTime();
            while (System.nanoTime() - t < Duration.ofSeconds(20).toNanos()) {
                Optional<DaemonProcess> now = daemon(unit);
                if (now.isPresent() && now.get().pid() != before.pid()) {
                    restart = round((System.nanoTime() - t) / 1e9, 2);
                    break;
                }
                Thread.sleep(50);
            }
            JsonNode m = x.poll("matmul", Duration.ofSeconds(30));
            Integer exit = x.awaitExit(Duration.ofSeconds(5));
            String what;
            if (m == null) {
                what = "failed: ended without a result (exit %s); it printed: %s".formatted(exit, x.tail());
            } else if (m.has("error")) {
                what = "failed: " + m.path("error").asText();
            } else {
                what = "kept computing at %s TFLOP/s".formatted(m.path("tflops").asText());
            }
            report.put("daemonKilledClient", what);
            report.put("daemonKilledClientKeptComputing", m != null && !m.has("error"));
        }
        report.put("daemonKilledPid", before.pid());
        report.put("daemonRestartSeconds", restart);
        report.put("daemonKillNotices", noticesSince(from, null));
        List<Map<String, Object>> all = new ArrayList<>(bypasses);
        report.put("daemonKillBypasses", all.subList(Math.min(caught, all.size()), all.size()));
        long limit = Pod.A.limitMib(Rig.CONTEXT_RESERVE_MIB);
        try (Probe x = rig.probes()
                .start(
                        layout.flag() + "/daemonKill/pod-a-after",
                        where(Pod.A),
                        Map.of(),
                        "limits",
                        Long.toString(limit - 2048),
                        Long.toString(limit + 1024))) {
            boolean ok = x.await("ok", Rig.LINE).path("allocated").asBoolean();
            boolean over = x.await("over", Rig.LINE).path("allocated").asBoolean();
            report.put("afterRestartAllocUnderLimitOk", ok);
            report.put("afterRestartAllocOverLimitRefused", !over);
            report.put("afterRestartLimitsHeld", ok && !over);
        }
    }

    /** The agent stopped and started again while pod A's process holds memory: the daemon found is the one kept. */
    private void agentRestart() throws InterruptedException {
        try (Probe x = rig.probes()
                .start(layout.flag() + "/agentRestart/pod-a", where(Pod.A), Map.of(), "hold", "2048", "60")) {
            x.await("holding", Rig.LINE);
            MpsShare unit = unit(Pod.A);
            DaemonProcess before =
                    daemon(unit).orElseThrow(() -> new IllegalStateException("pod A's MPS daemon is not running"));
            MpsIsolation old = mps;
            old.close();
            mps = MpsIsolation.start(config, rig.hardware(), rig.nvml(), InstantSource.system(), listener);
            mps.round();
            Optional<DaemonProcess> after = daemon(unit(Pod.A));
            Optional<DaemonProcess> found = DaemonProcess.find(
                    Path.of("/proc"),
                    rig.control().getFileName().toString(),
                    daemonDirs(unit).pipe());
            report.put("agentRestartDaemonBefore", before.pid());
            report.put("agentRestartDaemonAfter", after.map(DaemonProcess::pid).orElse(null));
            report.put(
                    "agentRestartKeptDaemon", after.equals(Optional.of(before)) && found.equals(Optional.of(before)));
            report.put("agentRestartShares", mps.servers().shares().size());
            Thread.sleep(Rig.CHECK_EVERY.toMillis() * 2);
            report.put("agentRestartProcessKept", x.alive());
        }
    }

    /**
     * The agent stopped, its daemons' logs kept (under {@code <root>/mps-logs/<layout>/}: releasing a share removes
     * its directory), every share released, and what still runs under the layout's root ended.
     */
    private void stop() {
        MpsIsolation m = mps;
        if (m != null) {
            try {
                m.close();
                keepLogs();
                m.servers().retain(s -> false);
            } catch (RuntimeException e) {
                report.error("stop", Report.describe(e));
            }
        }
        try {
            report.put("leftAtEnd", Leftovers.ended(config.root(), rig.control()));
        } catch (RuntimeException e) {
            report.error("stop", Report.describe(e));
        }
    }

    private void keepLogs() {
        Path to = rig.root().resolve("mps-logs").resolve(layout.flag());
        try (var all = java.nio.file.Files.walk(config.root())) {
            for (Path f : all.filter(java.nio.file.Files::isRegularFile).toList()) {
                Path rel = config.root().relativize(f);
                if (rel.toString().contains("/log/")) {
                    java.nio.file.Files.createDirectories(to.resolve(rel).getParent());
                    java.nio.file.Files.copy(f, to.resolve(rel), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException | RuntimeException e) {
            report.error("stop", "keeping the MPS logs: " + Report.describe(e));
        }
    }

    private Map<String, Object> finish() {
        report.put("notices", new ArrayList<>(notices));
        report.put("bypasses", new ArrayList<>(bypasses));
        report.put("usageExceeded", new ArrayList<>(exceeded));
        for (Map<String, Object> p : pods.values()) {
            ShareFigures.POD_FIELDS.forEach(f -> p.putIfAbsent(f, null));
        }
        report.put("pods", pods);
        ShareFigures.LAYOUT_FIELDS.forEach(f -> {
            if (report.get(f) == null) {
                report.put(f, null);
            }
        });
        return report.json();
    }
}
