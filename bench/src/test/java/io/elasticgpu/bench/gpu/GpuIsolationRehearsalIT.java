package io.elasticgpu.bench.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rehearsal of {@code bench/run gpu-isolation} without a GPU, so that the check a GPU host runs cannot rot between
 * the rare runs on one: the same program, in its own JVM, with the NVML stub as libnvidia-ml.so.1 (configured through
 * {@code NVML_STUB_CONFIG}), the stand-in nvidia-cuda-mps-control and a stand-in for the PyTorch probe that prints
 * the same lines with made-up figures. It checks that every step runs and every field the results page needs is
 * written; the figures themselves come only from a GPU.
 */
class GpuIsolationRehearsalIT {

    private static final Path NODE = Path.of(System.getProperty("user.dir")).resolveSibling("node");

    @TempDir
    Path dir;

    @Test
    void theGpuCheckRunsEveryStepAndWritesEveryFieldAgainstTheStandIns() throws Exception {
        Path stub = dir.resolve("lib/libnvidia-ml.so.1");
        Files.createDirectories(stub.getParent());
        run(
                List.of(
                        "gcc",
                        "-shared",
                        "-fPIC",
                        "-O1",
                        "-o",
                        stub.toString(),
                        NODE.resolve("src/test/c/nvml_stub.c").toString(),
                        "-lpthread"),
                null);
        Path config = Files.writeString(
                dir.resolve("nvml.conf"),
                "driver 580.159.04\n"
                        + "card GPU-11111111-2222-3333-4444-555555555555 00000000:00:06.0 0 -1 0 81559 NVIDIA H100 "
                        + "80GB HBM3\n");
        Path control = executable(
                NODE.resolve("src/test/resources/mps/nvidia-cuda-mps-control"),
                dir.resolve("bin/nvidia-cuda-mps-control"));
        Path python =
                executable(Path.of(getClass().getResource("/gpu/fake-python").toURI()), dir.resolve("bin/python3"));
        Path json = dir.resolve("gpu-isolation.json");

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
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
                "--python",
                python.toString(),
                "--probe",
                "probe.py",
                "--root",
                dir.resolve("mps").toString());
        pb.environment().put("LD_LIBRARY_PATH", stub.getParent().toString());
        pb.environment().put("NVML_STUB_CONFIG", config.toString());
        String output = run(pb.command(), pb);

        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.has("errors"))
                .as("steps that failed: %s%n%s", r.path("errors"), output)
                .isFalse();
        assertThat(r.path("device").asText()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(r.path("driver").asText()).isEqualTo("580.159.04");
        for (String field : List.of(
                "date",
                "torch",
                "cuda",
                "unlimitedTflops",
                "togetherTflops",
                "togetherFractionOfUnlimited",
                "daemonRestartSeconds",
                "afterRestartLimitsHeld",
                "agentRestartKeptDaemon",
                "extraProcessEnded",
                "sharedDaemonTogetherTflops",
                "noMpsTogetherTflops",
                "usageSample",
                "checks")) {
            assertThat(r.has(field)).as(field).isTrue();
        }
        for (String pod : List.of("pod-a", "pod-b")) {
            for (String field : List.of(
                    "memoryLimitHeld",
                    "envOverrideRefused",
                    "aloneTflops",
                    "togetherTflops",
                    "usageErrorPct",
                    "seenLimitMib",
                    "heldMib")) {
                assertThat(r.path("pods").path(pod).has(field))
                        .as(pod + "." + field)
                        .isTrue();
            }
        }
        assertThat(r.path("agentRestartKeptDaemon").asBoolean()).isTrue();
        assertThat(r.path("daemonRestartSeconds").asDouble()).isBetween(0.0, 10.0);
        try (var left = Files.list(dir.resolve("mps"))) {
            assertThat(left.filter(Files::isDirectory).map(p -> p.getFileName().toString()))
                    .as("the check's share daemons end with it")
                    .allMatch(n -> !n.startsWith("dp-"));
        }
    }

    private static Path executable(Path from, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        Files.copy(from, to);
        to.toFile().setExecutable(true);
        return to;
    }

    private String run(List<String> command, ProcessBuilder configured) throws Exception {
        ProcessBuilder pb = configured == null ? new ProcessBuilder(command) : configured;
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        String text = Files.readString(log);
        assertThat(ended)
                .as("%s did not end within 5 minutes%n%s", command, text)
                .isTrue();
        assertThat(p.exitValue()).as("%s%n%s", command, text).isZero();
        return text;
    }
}
