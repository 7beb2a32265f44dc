package io.elasticgpu.bench.gpu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of {@code bench/gpu/probe.py}: a CUDA process standing for a pod's process. Optionally inside the share's
 * own {@code /dev/shm} (a private mount namespace, as the container runtime mounts it into a pod) and with the share's
 * pipe directory in its environment. Its JSON lines are read as they come; every wait has a timeout, after which the
 * process is killed.
 */
final class Probe implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode END = JSON.createObjectNode().put("step", "(end of output)");

    private final Process process;
    private final LinkedBlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    private final List<String> other = new ArrayList<>();
    private final String name;

    private Probe(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread.ofVirtual().start(this::read);
    }

    /**
     * @param shm  the share's shared-memory directory to mount at {@code /dev/shm}, or null for the host's
     * @param env  variables to set (the share's pipe directory; a pod's own attempts to raise its limits)
     * @param args the probe's mode and arguments
     */
    static Probe start(String name, Path python, Path probe, Path shm, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        if (shm != null) {
            command.addAll(List.of(
                    "unshare",
                    "--mount",
                    "--propagation",
                    "private",
                    "--",
                    "/bin/sh",
                    "-c",
                    "mount --bind \"$0\" /dev/shm && exec \"$@\"",
                    shm.toString()));
        }
        command.add(python.toString());
        command.add(probe.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("CUDA_MPS_PIPE_DIRECTORY");
        pb.environment().putAll(env);
        try {
            return new Probe(name, pb.start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start probe " + name + ": " + e.getMessage(), e);
        }
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("{")) {
                    lines.add(JSON.readTree(line));
                } else {
                    synchronized (other) {
                        other.add(line);
                    }
                }
            }
        } catch (IOException e) {
            // the process ended; END below tells the waiter
        }
        lines.add(END);
    }

    /** The next line of {@code step}, or an error naming what the probe printed instead. */
    JsonNode await(String step, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                JsonNode n = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (n == null || n == END) {
                    process.destroyForcibly();
                    throw new IllegalStateException("probe %s: no \"%s\" line within %s; it printed: %s"
                            .formatted(name, step, timeout, tail()));
                }
                if (step.equals(n.path("step").asText())) {
                    return n;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for probe " + name, e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** The probe's own process id as it printed it (under {@code unshare} it is a child of {@link #pid()}'s chain). */
    static long pidOf(JsonNode line) {
        return line.path("pid").asLong();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Waits for the process to end, killing it after {@code timeout}; returns its exit code (-1 when killed). */
    int finish(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        return -1;
    }

    private String tail() {
        synchronized (other) {
            return other.isEmpty()
                    ? "nothing else"
                    : String.join(" | ", other.subList(Math.max(0, other.size() - 6), other.size()));
        }
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
