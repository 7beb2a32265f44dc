package io.elasticgpu.bench.gpu;

import static io.elasticgpu.bench.gpu.GpuIsolationCheck.map;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.round;

import com.fasterxml.jackson.databind.JsonNode;
import io.elasticgpu.node.isolation.IsolationConfig.Layout;
import io.elasticgpu.node.isolation.MpsControl;
import io.elasticgpu.node.isolation.MpsException;
import io.elasticgpu.node.isolation.MpsNamespaces;
import io.elasticgpu.node.isolation.MpsShare;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod that does not keep to its share, in each layout: a process whose environment asks for the whole card, one
 * whose {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} names a card it cannot see (the escape NVIDIA's MPS v3 guide reports),
 * one that sends its MPS daemon commands through the pipe directory its container was given, and one that points
 * {@code CUDA_MPS_PIPE_DIRECTORY} away from MPS to run on the card unlimited.
 */
final class HostileClients {

    /** What an over-limit allocation asks beyond the process's limit: more than the watchdog's two context reserves. */
    static final long OVER_BY_MIB = 4096;
    /** How long a pod's run of the control program may take (it answers in milliseconds, or not at all). */
    static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(5);

    private final LayoutRun run;
    private final Rig rig;
    private final String mode;
    private final MpsControl control;

    HostileClients(LayoutRun run) {
        this.run = run;
        this.rig = run.rig;
        this.mode = run.layout.flag();
        this.control = new MpsControl(rig.control(), false, "", Rig.CONTROL_TIMEOUT);
    }

    /**
     * Pod A's process with {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100} and {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=
     * 0=81559M}: an allocation over its limit, then matmuls.
     */
    void envRaise() {
        long over = Pod.A.limitMib(Rig.CONTEXT_RESERVE_MIB) + OVER_BY_MIB;
        try (Probe x = rig.probes()
                .start(
                        mode + "/envRaise/pod-a",
                        run.where(Pod.A),
                        Probes.RAISE,
                        "matmul",
                        Double.toString(Rig.MATMUL_SECONDS),
                        "0",
                        Long.toString(over))) {
            boolean allocated = x.await("over", Rig.LINE).path("allocated").asBoolean();
            run.report.put("envRaiseOverMib", over);
            run.report.put("envRaiseAllocOverLimit", allocated);
            // the agent may end a process that holds more than its part: then it has no rate
            JsonNode m = x.poll("matmul", Rig.LINE);
            Double t = m == null ? null : m.path("tflops").asDouble();
            Double fraction = rig.fraction(t);
            run.report.put("envRaiseTflops", t == null ? null : round(t, 1));
            run.report.put("envRaiseFractionOfUnlimited", fraction);
            run.report.put(
                    "envRaiseRefused",
                    allocated ? Boolean.FALSE : fraction == null ? null : fraction <= Pod.A.percent() / 100.0 + 0.10);
            if (m == null) {
                run.report.put(
                        "envRaiseEnded",
                        "no rate (exit %s): %s".formatted(x.awaitExit(Duration.ofSeconds(5)), x.tail()));
            } else if (m.has("error")) {
                run.report.put("envRaiseError", m.path("error").asText());
            }
        }
    }

    /**
     * Pod A's process with {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=1=1G}, a card it cannot see: whether its over-limit
     * allocation succeeds, and whether the agent ends it within a few rounds while it holds that memory (its usage
     * monitor sampled meanwhile, for {@code GpuShareExceeded}).
     */
    void invisibleCard() throws InterruptedException {
        long limit = Pod.A.limitMib(Rig.CONTEXT_RESERVE_MIB);
        int from = run.notices.size();
        try (Probe x = rig.probes()
                .start(
                        mode + "/invisibleCard/pod-a",
                        run.where(Pod.A),
                        Map.of("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "1=1G"),
                        "limits",
                        Long.toString(limit - 2048),
                        Long.toString(limit + OVER_BY_MIB),
                        "15")) {
            boolean escaped = x.await("over", Rig.LINE).path("allocated").asBoolean();
            run.report.put("invisibleCardOverMib", limit + OVER_BY_MIB);
            run.report.put("invisibleCardEscape", escaped);
            Double ended = null;
            if (escaped) {
                ShareFigures sampler = new ShareFigures(run);
                LayoutRun.End end = run.awaitEnd(x, Duration.ofSeconds(6), () -> sampler.sample("invisibleCard"));
                boolean byAgent = run.noticesSince(from, "GpuShareExceeded").stream()
                        .anyMatch(n -> String.valueOf(n.get("message")).contains("pid " + x.pid() + ")"));
                ended = end == null || !byAgent ? null : end.secondsAfter(x, "over");
            }
            run.report.put("invisibleCardEndedSeconds", ended);
            run.report.put("invisibleCardNotices", run.noticesSince(from, null));
        }
    }

    /**
     * From inside pod A's cgroup and mount namespace, with its access applied, the control program (the same binary)
     * sent commands that would raise the share's limits through the container's pipe directory. The limits are read
     * back through the agent's side before its next round (its loop waits: a round holds the {@code MpsIsolation}'s
     * lock, which this step holds meanwhile), then after one round.
     */
    void controlPipe() {
        try (Probe x =
                rig.probes().start(mode + "/controlPipe/pod-a", run.where(Pod.A), Map.of(), "hold", "2048", "60")) {
            x.await("holding", Rig.LINE);
            run.mps.round(); // the agent learns pod A's server from NVML and the daemon
            MpsShare unit = run.unit(Pod.A);
            Path pipe = run.daemonDirs(unit).pipe();
            List<Long> servers = run.mps.servers().processes(unit).keySet().stream()
                    .filter(s -> s > 0)
                    .toList();
            List<Map<String, Object>> commands = new ArrayList<>();
            Map<String, String> before;
            Map<String, String> after;
            int from = run.notices.size();
            synchronized (run.mps) {
                before = readBack(unit, pipe, servers);
                boolean answers = true;
                for (List<String> c : attempts(unit, servers)) {
                    boolean stdin = c.getFirst().equals("stdin");
                    String what = stdin ? c.get(1) : String.join(" ", c.subList(2, c.size()));
                    if (!answers) {
                        commands.add(map("command", what, "exit", null, "output", "not tried: the last one hung"));
                        continue;
                    }
                    Probes.Run r = rig.probes()
                            .run(
                                    mode + "/controlPipe/pod-a-control",
                                    run.where(Pod.A),
                                    Map.of(),
                                    stdin ? List.of(rig.control().toString()) : c.subList(1, c.size()),
                                    stdin ? c.get(1) + "\n" : "",
                                    CLIENT_TIMEOUT);
                    commands.add(map("command", what, "exit", r.exit(), "output", r.output()));
                    answers = r.exit() >= 0;
                }
                after = readBack(unit, pipe, servers);
            }
            boolean refused = before.equals(after);
            run.mps.round();
            Map<String, String> restored = readBack(unit, pipe, servers);
            run.report.put(
                    "controlPipe",
                    map(
                            "servers",
                            servers,
                            "commands",
                            commands,
                            "before",
                            before,
                            "after",
                            after,
                            "afterRound",
                            restored));
            run.report.put("controlPipeRefused", refused);
            run.report.put("controlPipeRestoredByAgent", refused ? null : restored.equals(before));
            run.report.put("controlPipeNotices", run.noticesSince(from, "GpuShareLimitRestored"));
        }
    }

    /**
     * The commands a pod would try: legacy MPS's setters through the pipe (on stdin, as {@code echo ... |
     * nvidia-cuda-mps-control} sends them), or MPS v3's {@code namespace set}; each entry is {@code stdin, command} or
     * {@code argv, program, args...}.
     */
    private List<List<String>> attempts(MpsShare unit, List<Long> servers) {
        List<List<String>> out = new ArrayList<>();
        String program = rig.control().toString();
        if (run.layout == Layout.V3) {
            MpsNamespaces.Held held = ((MpsNamespaces) run.mps.servers())
                    .held().stream()
                            .filter(h -> h.share().key().equals(unit.key()))
                            .findFirst()
                            .orElseThrow(() -> new IllegalStateException("pod A's namespace is not held"));
            out.add(List.of(
                    "argv",
                    program,
                    "-p",
                    "3",
                    "namespace",
                    "set",
                    held.namespace(),
                    "--server=" + held.server(),
                    "--active-thread-percentage=100"));
            out.add(List.of("argv", program, "-p", "3", "server", "list"));
            return out;
        }
        out.add(List.of("stdin", "get_server_list"));
        out.add(List.of("stdin", "set_default_active_thread_percentage 100"));
        for (long s : servers) {
            out.add(List.of("stdin", "set_active_thread_percentage %d 100".formatted(s)));
            out.add(List.of("stdin", "set_device_pinned_mem_limit %d 0 81559M".formatted(s)));
        }
        out.add(List.of("stdin", "get_server_list"));
        return out;
    }

    /** The unit's limits as the agent's side reads them (the control program against the host's pipe directory). */
    private Map<String, String> readBack(MpsShare unit, Path pipe, List<Long> servers) {
        Map<String, String> out = new LinkedHashMap<>();
        List<List<String>> gets = new ArrayList<>();
        if (run.layout == Layout.V3) {
            MpsNamespaces.Held held = ((MpsNamespaces) run.mps.servers())
                    .held().stream()
                            .filter(h -> h.share().key().equals(unit.key()))
                            .findFirst()
                            .orElseThrow(() -> new IllegalStateException("pod A's namespace is not held"));
            for (String field : List.of("pinned-memory-limit", "active-thread-percentage")) {
                gets.add(List.of("-p", "3", "namespace", "get", held.namespace(), held.server(), field));
            }
        } else {
            gets.add(List.of("get_default_active_thread_percentage"));
            gets.add(List.of("get_default_device_pinned_mem_limit 0"));
            for (long s : servers) {
                gets.add(List.of("get_active_thread_percentage " + s));
                gets.add(List.of("get_device_pinned_mem_limit %d 0".formatted(s)));
            }
        }
        for (List<String> g : gets) {
            String answer;
            try {
                answer = g.size() == 1 ? control.send(pipe, g.getFirst()) : control.call(pipe, g);
            } catch (MpsException e) {
                answer = "(error: " + e.getMessage() + ")";
            }
            out.put(String.join(" ", g), answer);
        }
        return out;
    }

    /**
     * A process in pod B's cgroup with {@code CUDA_MPS_PIPE_DIRECTORY=/nonexistent}: outside MPS, unlimited. The
     * seconds from its first CUDA context to its death, and the agent's bypass notices.
     */
    void bypass() {
        if (!rig.cgroups().available()) {
            run.report.put("bypassSkipped", "no pod cgroups: " + rig.cgroups().reason());
            return;
        }
        int from = run.bypasses.size();
        try (Probe x = rig.probes()
                .start(
                        mode + "/bypass/pod-b",
                        run.where(Pod.B),
                        Map.of("CUDA_MPS_PIPE_DIRECTORY", "/nonexistent"),
                        "matmul",
                        "20",
                        "0")) {
            JsonNode context = x.poll("context", Rig.LINE); // null when it was killed before it said so
            Integer exit = x.awaitExit(Duration.ofSeconds(20));
            boolean killed = exit != null
                    && exit == 128 + 9
                    && !x.printed("matmul")
                    && run.bypasses.stream().anyMatch(b -> Long.valueOf(x.pid()).equals(b.get("pid")));
            run.report.put("bypassExit", exit);
            run.report.put("bypassKilled", killed);
            run.report.put(
                    "bypassSecondsToKill",
                    killed && context != null
                            ? round(
                                    x.exitEpochMillis() / 1000.0
                                            - context.path("t").asDouble(),
                                    2)
                            : null);
            List<Map<String, Object>> all = new ArrayList<>(run.bypasses);
            run.report.put("bypassNotices", all.subList(Math.min(from, all.size()), all.size()));
        }
    }
}
