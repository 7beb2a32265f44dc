package io.elasticgpu.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.node.discovery.NvmlStub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rehearsal of {@code bench/run gpu-isolation} without a GPU, so that the check a GPU host runs cannot rot between
 * the rare runs on one: the same program, in its own JVM, as root, with the NVML stub as libnvidia-ml.so.1 (configured
 * through {@code NVML_STUB_CONFIG}), the stand-in nvidia-cuda-mps-control with the v3 stand-in beside it (so all three
 * layouts run), the nvidia-smi stand-in, and a stand-in for the PyTorch probe that prints the same lines with made-up
 * figures. It checks that every step runs, every field is written, the JSON is written when a step or the whole run
 * fails, and nothing is left running. The stand-ins cannot make a probe an MPS client or put it in NVML's process
 * lists, so the figures that need a GPU (NVML's memory per process, the watchdog's kills, the rates) are null, false
 * or made up here; the code paths that produce them run.
 */
class GpuIsolationRehearsalIT {

    private static final Path NODE = Path.of(System.getProperty("user.dir")).resolveSibling("node");

    @TempDir
    Path dir;

    private Path stub;
    private Path config;
    private Path control;
    private Path smi;
    private Path python;

    @BeforeEach
    void standIns() throws Exception {
        stub = NvmlStub.buildInto(dir.resolve("lib"));
        config = Files.writeString(
                dir.resolve("nvml.conf"),
                "driver 580.159.04\n"
                        + "card GPU-11111111-2222-3333-4444-555555555555 00000000:00:06.0 0 -1 0 81559 NVIDIA H100 "
                        + "80GB HBM3\n");
        // the stand-in behind a wrapper that lets it answer a client in a fake container's mount namespace
        executable(
                NODE.resolve("src/test/resources/mps/nvidia-cuda-mps-control"),
                dir.resolve("bin/nvidia-cuda-mps-control.standin"));
        control = executable(
                Path.of(getClass().getResource("/gpu/mps-control-in-container").toURI()),
                dir.resolve("bin/nvidia-cuda-mps-control"));
        executable(
                NODE.resolve("src/test/resources/mps/nvidia-cuda-mps-control-v3"),
                dir.resolve("bin/nvidia-cuda-mps-control-v3"));
        smi = executable(NODE.resolve("src/test/resources/nvidia-smi/nvidia-smi"), dir.resolve("smi/nvidia-smi"));
        Files.writeString(dir.resolve("smi/gpus"), "GPU-11111111-2222-3333-4444-555555555555 00000000:00:06.0\n");
        python = executable(Path.of(getClass().getResource("/gpu/fake-python").toURI()), dir.resolve("bin/python3"));
    }

    @Test
    void theGpuCheckRunsEveryStepOfEveryLayoutAndWritesEveryField() throws Exception {
        Path root = dir.resolve("mps");
        Result r = check(root, Map.of());
        JsonNode j = r.json();
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(j.has("fatal"))
                .as("fatal: %s%n%s", j.path("fatal"), r.output())
                .isFalse();
        assertThat(j.has("errors"))
                .as("errors: %s%n%s", j.path("errors"), r.output())
                .isFalse();
        for (String field : List.of(
                "date",
                "device",
                "driver",
                "cuda",
                "torch",
                "computeMode",
                "memoryMib",
                "podCgroups",
                "unlimitedTflops",
                "noMpsTogetherTflops",
                "layouts",
                "checks")) {
            assertThat(j.has(field)).as(field).isTrue();
        }
        assertThat(j.path("device").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(j.path("driver").asText()).isEqualTo("580.159.04");
        assertThat(j.path("podCgroups").isBoolean()).isTrue();
        assertThat(j.path("podCgroups").asBoolean()
                        || j.path("podCgroupsReason").isTextual())
                .isTrue();
        for (String mode : List.of("per-share", "per-card", "v3")) {
            JsonNode l = j.path("layouts").path(mode);
            assertThat(l.has("errors"))
                    .as("%s errors: %s%n%s", mode, l.path("errors"), r.output())
                    .isFalse();
            assertThat(l.has("unavailable")).as(mode).isFalse();
            assertThat(l.path("mode").asText()).isEqualTo(mode);
            everyField(l, mode);
            assertThat(l.path("status").path("layout").asText()).isEqualTo(mode);
            // what the stand-ins do decide: the agent's loop starts a killed daemon again (within 10 s, or the stand-in
            // client's 10 s timeout more when the daemon was killed while it answered the loop: a real client's socket
            // fails at once), a restarted agent adopts it, a client's commands through its pipe directory are run and
            // recorded
            assertThat(l.path("daemonRestartSeconds").asDouble(-1)).as(mode).isBetween(0.0, 21.0);
            assertThat(l.path("agentRestartKeptDaemon").asBoolean())
                    .as(
                            "%s: daemon before the agent's restart %s, after %s%n%s",
                            mode, l.path("agentRestartDaemonBefore"), l.path("agentRestartDaemonAfter"), r.output())
                    .isTrue();
            assertThat(l.path("afterRestartLimitsHeld").asBoolean()).as(mode).isTrue();
            assertThat(l.path("controlPipe").path("commands").size()).as(mode).isGreaterThanOrEqualTo(2);
            assertThat(l.path("controlPipe").path("commands").get(0).has("exit"))
                    .isTrue();
        }
        // legacy MPS takes a pod's commands through its pipe; the agent puts the daemon's default back in its round
        JsonNode perShare = j.path("layouts").path("per-share");
        assertThat(perShare.path("controlPipeRefused").asBoolean(true)).isFalse();
        assertThat(perShare.path("controlPipeNotices").toString()).contains("GpuShareLimitRestored");
        // v3: the namespace's directory leads to no control daemon
        assertThat(j.path("layouts").path("v3").path("controlPipeRefused").asBoolean())
                .isTrue();
        for (String mode : List.of("per-share", "per-card", "v3")) {
            assertThat(j.path("checks").has(mode + ".togetherAtLeast90PctOfUnlimited"))
                    .isTrue();
        }
        j.path("checks")
                .properties()
                .forEach(
                        e -> assertThat(e.getValue().isBoolean() || e.getValue().isNull())
                                .as(e.getKey())
                                .isTrue());
        nothingLeft(root, j);
    }

    @Test
    void aStepThatFailsIsRecordedAndEveryOtherStepStillRuns() throws Exception {
        Path root = dir.resolve("mps");
        Result r = check(root, Map.of("FAKE_PYTHON_FAIL", "per-share/together/*"), "--layouts", "per-share");
        JsonNode j = r.json();
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(j.has("fatal")).isFalse();
        JsonNode l = j.path("layouts").path("per-share");
        List<String> failed = new ArrayList<>();
        l.path("errors").fieldNames().forEachRemaining(failed::add);
        assertThat(failed).as(r.output()).containsExactly("together");
        assertThat(l.path("errors").path("together").asText()).contains("made-up failure");
        everyField(l, "per-share");
        assertThat(l.path("togetherFractionOfUnlimited").isNull()).isTrue();
        assertThat(l.path("pods").path("pod-a").path("memoryLimitHeld").asBoolean())
                .isTrue();
        assertThat(l.path("daemonRestartSeconds").isNumber()).isTrue();
        assertThat(l.path("agentRestartKeptDaemon").asBoolean()).isTrue();
        assertThat(j.path("layouts").path("per-card").path("skipped").asText()).contains("not asked");
        assertThat(j.path("checks")
                        .path("per-share.togetherAtLeast90PctOfUnlimited")
                        .isNull())
                .isTrue();
        nothingLeft(root, j);
    }

    @Test
    void aRunThatCannotGoOnStillWritesItsJson() throws Exception {
        Path root = Files.createDirectories(dir.resolve("someone-elses"));
        Files.writeString(root.resolve("precious.txt"), "not the check's\n");
        Result r = check(root, Map.of());
        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.json().path("fatal").asText()).contains("not the GPU check's");
        assertThat(r.json().has("date")).isTrue();
        assertThat(r.json().has("checks")).isTrue();
        assertThat(root.resolve("precious.txt")).exists();
    }

    private static void everyField(JsonNode l, String mode) {
        for (String field : ShareFigures.LAYOUT_FIELDS) {
            assertThat(l.has(field)).as(mode + "." + field).isTrue();
        }
        for (String field : List.of("mode", "controlPipeRefused", "bypassSecondsToKill", "contextOverheadMiB")) {
            assertThat(l.has(field)).as(mode + "." + field).isTrue();
        }
        for (Pod p : Pod.BOTH) {
            for (String field : ShareFigures.POD_FIELDS) {
                assertThat(l.path("pods").path(p.name()).has(field))
                        .as(mode + "." + p.name() + "." + field)
                        .isTrue();
            }
        }
    }

    /** No MPS daemon or probe of the run still runs, and the fake pods' cgroups are gone. */
    private static void nothingLeft(Path root, JsonNode j) throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            List<String> left = procs.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .filter(p -> {
                        String env = Leftovers.environment(
                                Long.parseLong(p.getFileName().toString()));
                        return env.contains("=" + root + "/") || env.contains(Probes.ROOT_VAR + "=" + root + "\n");
                    })
                    .map(p -> p.getFileName().toString())
                    .toList();
            assertThat(left).as("processes of the run still running").isEmpty();
        }
        for (Pod p : Pod.BOTH) {
            JsonNode path = j.path("podCgroupPaths").path(p.name());
            if (path.isTextual()) {
                assertThat(Path.of(path.asText())).as("%s's cgroup", p.name()).doesNotExist();
            }
        }
    }

    private record Result(int exit, String output, JsonNode json) {}

    private Result check(Path root, Map<String, String> env, String... more) throws Exception {
        Path json = dir.resolve("gpu-isolation.json");
        Files.deleteIfExists(json);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                "io.elasticgpu.bench.Lab",
                "gpu-isolation",
                "--json",
                json.toString(),
                "--mps-control",
                control.toString(),
                "--nvidia-smi",
                smi.toString(),
                "--python",
                python.toString(),
                "--probe",
                "probe.py",
                "--root",
                root.toString()));
        command.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("LD_LIBRARY_PATH", stub.getParent().toString());
        pb.environment().put("NVML_STUB_CONFIG", config.toString());
        pb.environment().putAll(env);
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            p.destroy(); // as the GPU host's timeout does: the check writes its JSON and ends what it started
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        String text = Files.readString(log);
        assertThat(ended).as("the check did not end within 5 minutes%n%s", text).isTrue();
        assertThat(json).as(text).exists();
        return new Result(p.exitValue(), text, new ObjectMapper().readTree(json.toFile()));
    }

    private static Path executable(Path from, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(from, to);
        to.toFile().setExecutable(true);
        return to;
    }
}
