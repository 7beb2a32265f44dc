package io.elasticgpu.bench.gpu;

import static io.elasticgpu.bench.gpu.GpuIsolationCheck.map;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.round;

import com.fasterxml.jackson.databind.JsonNode;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.usage.UsageMonitor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What each share of a layout gives its processes: the memory limit each process sees and meets, each pod's matmul
 * rate alone and both pods' together against one unlimited process, the memory each process holds as NVML counts it
 * (context included) against its pod's grant and against what the agent's usage monitor reads for the pod (by
 * cgroup), and a process beyond pod B's count.
 */
final class ShareFigures {

    /** Every pod's fields in a layout's JSON, null where a step did not get to them. */
    static final List<String> POD_FIELDS = List.of(
            "seenFreeMib",
            "seenLimitMib",
            "seenErrorPct",
            "contextMib",
            "allocUnderLimitOk",
            "allocOverLimitRefused",
            "memoryLimitHeld",
            "aloneTflops",
            "aloneFractionOfUnlimited",
            "aloneWithinSharePlus10",
            "togetherTflops",
            "togetherFractionOfUnlimited",
            "withinShare10",
            "heldMib",
            "usageReadMib",
            "usageErrorPct",
            "heldWithinShare");

    /** Every layout's own fields in its JSON. */
    static final List<String> LAYOUT_FIELDS = List.of(
            "status",
            "access",
            "togetherTflops",
            "togetherFractionOfUnlimited",
            "contextOverheadMiB",
            "contextOverheadByProcess",
            "usageSample",
            "extraProcessEnded",
            "extraProcessEndedSeconds",
            "firstTwoStillRunning",
            "invisibleCardEscape",
            "invisibleCardEndedSeconds",
            "envRaiseTflops",
            "envRaiseFractionOfUnlimited",
            "envRaiseAllocOverLimit",
            "envRaiseRefused",
            "controlPipe",
            "controlPipeRefused",
            "controlPipeRestoredByAgent",
            "controlPipeNotices",
            "bypassKilled",
            "bypassSecondsToKill",
            "bypassNotices",
            "daemonKilledClient",
            "daemonKilledClientKeptComputing",
            "daemonRestartSeconds",
            "afterRestartLimitsHeld",
            "agentRestartKeptDaemon");

    /** Each process of the together step holds this much, well within its part. */
    static final long HOLD_MIB = 16384;

    private final LayoutRun run;
    private final Rig rig;
    private final String mode;

    ShareFigures(LayoutRun run) {
        this.run = run;
        this.rig = run.rig;
        this.mode = run.layout.flag();
    }

    private Map<String, Object> of(Pod p) {
        return run.pods.get(p.name());
    }

    /** What one process of each pod sees and may allocate (A and B at once: different shares). */
    void limits() {
        List<CompletableFuture<Void>> both = new ArrayList<>();
        for (Pod p : Pod.BOTH) {
            both.add(CompletableFuture.runAsync(() -> limits(p), Thread::startVirtualThread));
        }
        List<String> failed = new ArrayList<>();
        for (CompletableFuture<Void> f : both) {
            try {
                f.join();
            } catch (CompletionException e) {
                failed.add(Report.describe(e.getCause()));
            }
        }
        if (!failed.isEmpty()) {
            throw new IllegalStateException(String.join("; ", failed));
        }
    }

    /**
     * What one process of {@code p} sees as its memory (cudaMemGetInfo's free memory plus what PyTorch holds from
     * CUDA) and whether an allocation under its limit succeeds and one over it is refused.
     */
    private void limits(Pod p) {
        long limit = p.limitMib(Rig.CONTEXT_RESERVE_MIB);
        try (Probe x = rig.probes()
                .start(
                        mode + "/limits/" + p.name(),
                        run.where(p),
                        Map.of(),
                        "limits",
                        Long.toString(limit - 2048),
                        Long.toString(limit + 1024))) {
            JsonNode start = x.await("start", Rig.LINE);
            Long nvml = rig.onCard().get(x.pid());
            boolean ok = x.await("ok", Rig.LINE).path("allocated").asBoolean();
            boolean over = x.await("over", Rig.LINE).path("allocated").asBoolean();
            long seen =
                    start.path("freeMib").asLong() + start.path("reservedMib").asLong();
            Map<String, Object> r = of(p);
            r.put("seenFreeMib", start.path("freeMib").asLong());
            r.put("seenTotalMib", start.path("totalMib").asLong());
            r.put("seenLimitMib", seen);
            r.put("seenErrorPct", round(100.0 * Math.abs(seen - limit) / limit, 2));
            r.put(
                    "contextMib",
                    nvml == null || nvml < 0
                            ? null
                            : nvml - start.path("reservedMib").asLong());
            r.put("allocUnderLimitOk", ok);
            r.put("allocOverLimitRefused", !over);
            r.put("memoryLimitHeld", ok && !over);
        }
    }

    /** Each pod's summed matmul rate with the card to itself, its processes at once. */
    void alone() {
        for (Pod p : Pod.BOTH) {
            List<Probe> running = new ArrayList<>();
            java.nio.file.Path go = rig.probes().startFile();
            try {
                for (int i = 0; i < p.processes(); i++) {
                    running.add(rig.probes()
                            .start(
                                    mode + "/alone/" + p.name() + "-" + i,
                                    run.where(p),
                                    Map.of("START_FILE", go.toString()),
                                    "matmul",
                                    Double.toString(Rig.MATMUL_SECONDS),
                                    "0"));
                }
                Probes.startTogether(running, go, Rig.LINE);
                double t = sum(running, p, "aloneError");
                Double fraction = rig.fraction(t);
                of(p).put("aloneTflops", round(t, 1));
                of(p).put("aloneFractionOfUnlimited", fraction);
                of(p).put("aloneWithinSharePlus10", fraction == null ? null : fraction <= p.percent() / 100.0 + 0.10);
            } finally {
                running.forEach(Probe::close);
            }
        }
    }

    /** The summed rate of {@code running}; a process's CUDA error is recorded under {@code errorField}. */
    private double sum(List<Probe> running, Pod p, String errorField) {
        double t = 0;
        for (Probe x : running) {
            JsonNode m = x.await("matmul", Rig.LINE);
            t += m.path("tflops").asDouble();
            if (m.has("error")) {
                of(p).put(errorField, m.path("error").asText());
            }
        }
        return t;
    }

    /**
     * Both pods at once, each process holding {@link #HOLD_MIB}: what NVML says each holds (context included) against
     * its pod's grant and against what the agent's usage monitor reads for the pod, and the rates.
     */
    void together() throws InterruptedException {
        List<Probe> running = new ArrayList<>();
        java.nio.file.Path go = rig.probes().startFile();
        try {
            Map<Pod, List<Probe>> byPod = new LinkedHashMap<>();
            for (Pod p : Pod.BOTH) {
                for (int i = 0; i < p.processes(); i++) {
                    Probe x = rig.probes()
                            .start(
                                    mode + "/together/" + p.name() + "-" + i,
                                    run.where(p),
                                    Map.of("START_FILE", go.toString()),
                                    "matmul",
                                    Double.toString(Rig.MATMUL_SECONDS),
                                    Long.toString(HOLD_MIB));
                    running.add(x);
                    byPod.computeIfAbsent(p, k -> new ArrayList<>()).add(x);
                }
            }
            Map<Long, Long> reserved = new LinkedHashMap<>();
            for (Probe x : running) {
                JsonNode h = x.await("holding", Rig.LINE);
                reserved.put(x.pid(), h.path("reservedMib").asLong());
            }
            run.mps.round(); // the agent learns each share's processes now (its loop would within half a second)
            Map<Long, Long> nvml = rig.onCard();
            List<Map<String, Object>> overhead = new ArrayList<>();
            Long worst = null;
            for (var e : reserved.entrySet()) {
                Long used = nvml.get(e.getKey());
                Long context = used == null || used < 0 ? null : used - e.getValue();
                overhead.add(
                        map("pid", e.getKey(), "nvmlMib", used, "reservedMib", e.getValue(), "contextMib", context));
                if (context != null) {
                    worst = worst == null ? context : Math.max(worst, context);
                }
            }
            run.report.put("contextOverheadMiB", worst);
            run.report.put("contextOverheadByProcess", overhead);
            NodeUsage usage = sample("together");
            sample("together"); // a container over its grant is reported at the second sample in a row
            Probes.touch(go);
            double total = 0;
            for (Pod p : Pod.BOTH) {
                double t = sum(byPod.get(p), p, "togetherError");
                total += t;
                Long held = 0L;
                for (Probe x : byPod.get(p)) {
                    Long used = nvml.get(x.pid());
                    held = held == null || used == null || used < 0 ? null : held + used;
                }
                long read = usage.containers().stream()
                        .filter(u -> u.pod().equals(p.name()))
                        .mapToLong(NodeUsage.ContainerUsage::memoryMib)
                        .sum();
                Double fraction = rig.fraction(t);
                Map<String, Object> r = of(p);
                r.put("togetherTflops", round(t, 1));
                r.put("togetherFractionOfUnlimited", fraction);
                r.put("withinShare10", fraction == null ? null : Math.abs(fraction - p.percent() / 100.0) <= 0.10);
                r.put("heldMib", held);
                r.put("usageReadMib", read);
                r.put(
                        "usageErrorPct",
                        held == null || held == 0 ? null : round(100.0 * Math.abs(read - held) / held, 2));
                r.put("heldWithinShare", held == null ? null : held <= p.memoryMib());
            }
            run.report.put("togetherTflops", round(total, 1));
            run.report.put("togetherFractionOfUnlimited", rig.fraction(total));
            run.report.put("usageSample", usage);
        } finally {
            running.forEach(Probe::close);
        }
    }

    /** One sample of the agent's usage monitor; the containers it finds over their grant are recorded. */
    NodeUsage sample(String step) {
        UsageMonitor.Sample s = run.usage.sample();
        for (UsageMonitor.Exceeded e : s.exceeded()) {
            run.exceeded.add(map(
                    "t",
                    run.seconds(),
                    "step",
                    step,
                    "pod",
                    e.pod(),
                    "container",
                    e.container(),
                    "card",
                    e.card(),
                    "usedMib",
                    e.usedMib(),
                    "grantedMib",
                    e.grantedMib()));
        }
        return s.usage();
    }

    /** A third process of pod B, whose count is two: the agent ends the youngest. */
    void extraProcess() throws InterruptedException {
        List<Probe> running = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                running.add(rig.probes()
                        .start(mode + "/extraProcess/pod-b-" + i, run.where(Pod.B), Map.of(), "hold", "4096", "60"));
            }
            for (Probe x : running) {
                x.await("holding", Rig.LINE);
            }
            int from = run.notices.size();
            Probe third = rig.probes()
                    .start(mode + "/extraProcess/pod-b-third", run.where(Pod.B), Map.of(), "hold", "4096", "60");
            running.add(third);
            // watched from its start: the agent may end it before it says it holds its memory; ended by the agent
            // only when the agent said so (a process that failed by itself is not)
            LayoutRun.End end = run.awaitEnd(third, Duration.ofSeconds(12), null);
            List<Map<String, Object>> said = run.noticesSince(from, "GpuShareProcessEnded").stream()
                    .filter(n -> String.valueOf(n.get("message")).contains("pid " + third.pid() + ")"))
                    .toList();
            boolean ended = end != null && !said.isEmpty();
            run.report.put("extraProcessEnded", ended);
            run.report.put("extraProcessEndedSeconds", ended ? end.secondsAfter(third, "context") : null);
            run.report.put("extraProcessNotices", said);
            run.report.put("extraProcessPrinted", third.printed("holding") ? "holding" : third.tail());
            Map<Long, Long> nvml = rig.onCard();
            boolean listed = nvml.containsKey(running.get(0).pid())
                    || nvml.containsKey(running.get(1).pid());
            run.report.put(
                    "firstTwoStillRunning",
                    running.get(0).alive()
                            && running.get(1).alive()
                            && (!listed
                                    || nvml.containsKey(running.get(0).pid())
                                            && nvml.containsKey(running.get(1).pid())));
        } finally {
            running.forEach(Probe::close);
        }
    }
}
