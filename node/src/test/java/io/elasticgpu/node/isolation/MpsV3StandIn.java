package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The MPS v3 stand-ins of {@code src/test/resources/} installed as executables, and what tests read from and write
 * into their state: {@code mps/nvidia-cuda-mps-control-v3} (NVIDIA's v3 command line: named servers, namespaces,
 * clients), reached as NVIDIA's is, through {@code nvidia-cuda-mps-control} (the legacy stand-in, which hands it every
 * protocol-3 call), and {@code nvidia-smi/nvidia-smi} ({@code nvidia-smi memory-limits} on a cgroup's {@code dmem.*}
 * files).
 */
public final class MpsV3StandIn {

    private final Path program;

    private MpsV3StandIn(Path program) {
        this.program = program;
    }

    /**
     * Installs both MPS stand-ins in {@code dir}: {@code nvidia-cuda-mps-control}, the program the agent runs, and
     * {@code nvidia-cuda-mps-control-v3} beside it.
     */
    public static MpsV3StandIn install(Path dir) {
        try {
            Files.createDirectories(dir);
            Path v3 = copy("/mps/nvidia-cuda-mps-control-v3", dir.resolve("nvidia-cuda-mps-control-v3"));
            Path program = copy("/mps/nvidia-cuda-mps-control", dir.resolve("nvidia-cuda-mps-control"));
            v3.toFile().setExecutable(true);
            program.toFile().setExecutable(true);
            return new MpsV3StandIn(program);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The program the agent runs, {@code nvidia-cuda-mps-control}. */
    public Path program() {
        return program;
    }

    /**
     * Installs the {@code nvidia-smi} stand-in in {@code dir} with the node's cards (uuid → PCI bus id, in index
     * order); returns its path.
     */
    public static Path installNvidiaSmi(Path dir, Map<String, String> busIds) {
        try {
            Files.createDirectories(dir);
            Path smi = copy("/nvidia-smi/nvidia-smi", dir.resolve("nvidia-smi"));
            smi.toFile().setExecutable(true);
            StringBuilder gpus = new StringBuilder();
            busIds.forEach(
                    (uuid, bus) -> gpus.append(uuid).append(' ').append(bus).append('\n'));
            Files.writeString(dir.resolve("gpus"), gpus.toString());
            return smi;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every call the {@code nvidia-smi} stand-in at {@code smi} received, its arguments a line, oldest first. */
    public static List<String> smiCalls(Path smi) {
        return lines(smi.resolveSibling("calls.log"));
    }

    /** The commands the daemon received, one a line, oldest first, across its restarts. */
    public static List<String> commands(MpsDirs daemon) {
        return lines(daemon.log().resolve("commands.log"));
    }

    /** The {@code CUDA_MPS_*} and {@code CUDA_VISIBLE_DEVICES} variables the daemon last started with. */
    public static List<String> environment(MpsDirs daemon) {
        return lines(daemon.log().resolve("daemon.env"));
    }

    /** What the server's log says ({@code <log>/<server>/server.log}). */
    public static List<String> serverLog(MpsDirs daemon, String server) {
        return lines(daemon.log().resolve(server).resolve("server.log"));
    }

    /** Makes the daemon report process {@code pid} (which must run) as a client of the server's namespace. */
    public static void client(MpsDirs daemon, long pid, String server, int device, String namespace) {
        append(
                daemon.log().resolve("standin").resolve("clients"),
                "%d,%s,%d,%s,python3 train.py".formatted(pid, server, device, namespace));
    }

    /** Makes card {@code uuid} missing for the daemon: a server created on it exits at once. */
    public static void missingDevice(MpsDirs daemon, String uuid) {
        append(daemon.log().resolve("standin").resolve("missing-devices"), uuid);
    }

    /**
     * Runs the control program against the daemon, as anyone who can reach its main control socket can (never a
     * share's container), and returns what it printed.
     *
     * @throws IllegalStateException when it fails, with what it printed
     */
    public String call(MpsDirs daemon, String... arguments) {
        List<String> command = new ArrayList<>(List.of(program.toString(), "-p", "3"));
        command.addAll(List.of(arguments));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("CUDA_MPS_PIPE_DIRECTORY", daemon.pipe().toString());
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("%s failed: %s".formatted(command, out));
            }
            return out.strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills the v3 stand-in daemon under the MPS {@code root} (tests end theirs; daemons outlive the agent). */
    public static void killAll(Path root) {
        Path pipe = root.resolve("v3").resolve("daemon").resolve("pipe");
        long pid = MpsControl.pid(pipe);
        if (pid > 0) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        DaemonProcess.find(Path.of("/proc"), "nvidia-cuda-mps-control", pipe)
                .flatMap(d -> ProcessHandle.of(d.pid()))
                .ifPresent(ProcessHandle::destroyForcibly);
    }

    private static Path copy(String resource, Path to) throws IOException {
        try (InputStream in = MpsV3StandIn.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no test resource " + resource);
            }
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
            return to;
        }
    }

    private static void append(Path file, String line) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file)
                    ? Files.readAllLines(file).stream()
                            .filter(l -> !l.isBlank())
                            .toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
