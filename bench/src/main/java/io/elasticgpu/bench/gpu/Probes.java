package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.isolation.MpsDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the check starts its CUDA processes ({@link Probe}): which python runs which probe, a share's process's
 * environment, and the start file that makes processes that hold their memory multiply at the same moment.
 */
final class Probes {

    /** A process asking for the whole card for itself, as a pod can set its own environment. */
    private static final Map<String, String> RAISE =
            Map.of("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "100", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=81559M");

    private final Path python;
    private final Path probe;
    private final Path root;
    private int starts;

    /**
     * @param root where the start files go
     */
    Probes(Path python, Path probe, Path root) {
        this.python = python;
        this.probe = probe;
        this.root = root;
    }

    /** A probe in a share's {@code /dev/shm} ({@code dirs}; null for the host's), with {@code env}. */
    Probe start(String name, MpsDirs dirs, Map<String, String> env, String... args) {
        return Probe.start(name, python, probe, dirs == null ? null : dirs.shm(), env, args);
    }

    /**
     * The environment of a process of the share {@code dirs} (null: none): its pipe directory and, with
     * {@code raise}, a request for the whole card. Mutable, for the caller to add to.
     */
    static Map<String, String> env(MpsDirs dirs, boolean raise) {
        Map<String, String> env = new LinkedHashMap<>();
        if (dirs != null) {
            env.put("CUDA_MPS_PIPE_DIRECTORY", dirs.pipe().toString());
        }
        if (raise) {
            env.putAll(RAISE);
        }
        return env;
    }

    /** A new path for processes to wait on before they multiply (created by {@link #touch}). */
    Path startFile() {
        return root.resolve("start-" + (++starts));
    }

    /** Once every process holds its memory and has warmed up, they all start multiplying at once. */
    static void startTogether(List<Probe> running, Path go) {
        running.forEach(x -> x.await("holding", GpuIsolationCheck.PROBE));
        touch(go);
    }

    static void touch(Path go) {
        try {
            Files.createDirectories(go.getParent());
            Files.writeString(go, "go\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
