package io.elasticgpu.bench.gpu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of {@code bench/gpu/probe.py}: a CUDA process standing for a pod's process, started by {@link Probes} in its
 * pod's cgroup and mount namespace. Its JSON lines are read as they come; every wait has a timeout. The process is the
 * probe itself ({@code unshare} and {@code sh} exec it), so {@link #pid()} is the pid NVML lists.
 */
final class Probe implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode END = JSON.createObjectNode().put("step", "(end of output)");

    private final Process process;
    private final LinkedBlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
    private final List<JsonNode> seen = new ArrayList<>();
    private final List<String> other = new ArrayList<>();
    private final String name;
    private final long startedMillis = System.currentTimeMillis();
    private final java.util.concurrent.CompletableFuture<Long> exited;

    Probe(String name, ProcessBuilder pb) {
        this.name = name;
        try {
            this.process = pb.redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start probe " + name + ": " + e.getMessage(), e);
        }
        exited = process.onExit().thenApply(p -> System.currentTimeMillis());
        Thread.ofVirtual().start(this::read);
    }

    private void read() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode n = null;
                if (line.startsWith("{")) {
                    try {
                        n = JSON.readTree(line);
                    } catch (IOException e) {
                        n = null; // kept as text below
                    }
                }
                if (n != null) {
                    synchronized (seen) {
                        seen.add(n);
                    }
                    lines.add(n);
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

    /**
     * The next line of {@code step}; the process is killed and an error names what it printed instead when none comes
     * within {@code timeout} or the process ends first.
     */
    JsonNode await(String step, Duration timeout) {
        JsonNode n = poll(step, timeout);
        if (n == null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new IllegalStateException("probe %s: no \"%s\" line within %s (exit %s); it printed: %s"
                    .formatted(name, step, timeout, exitText(), tail()));
        }
        return n;
    }

    /** The next line of {@code step}, or null when none comes within {@code timeout} or the process ends first. */
    JsonNode poll(String step, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                JsonNode n = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (n == null) {
                    return null;
                }
                if (n == END) {
                    lines.add(END); // later waits end at once too
                    return null;
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

    /** Whether the probe printed a line of {@code step} so far. */
    boolean printed(String step) {
        synchronized (seen) {
            return seen.stream().anyMatch(n -> step.equals(n.path("step").asText()));
        }
    }

    /**
     * When the probe printed its first line of {@code step} (epoch milliseconds, its own clock: the host's), or when it
     * was started if it printed none.
     */
    long printedAt(String step) {
        synchronized (seen) {
            return seen.stream()
                    .filter(n -> step.equals(n.path("step").asText()) && n.has("t"))
                    .map(n -> Math.round(n.path("t").asDouble() * 1000))
                    .findFirst()
                    .orElse(startedMillis);
        }
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Its exit code once it ended within {@code timeout} (128 + the signal when a signal ended it), else null. */
    Integer awaitExit(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /** When the process ended (epoch milliseconds), or -1 while it runs. */
    long exitEpochMillis() {
        return process.isAlive() ? -1 : exited.join();
    }

    private String exitText() {
        return process.isAlive() ? "none yet" : Integer.toString(process.exitValue());
    }

    /** The last lines it printed that were not JSON (errors, tracebacks). */
    String tail() {
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
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
