package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.isolation.MpsAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How the check starts the processes that stand for a pod's: {@link Probe}s ({@code bench/gpu/probe.py}) and runs of
 * other programs (the MPS control program, from a pod's side). Each starts as a container's process would: in its
 * pod's cgroup ({@code echo $$ > <container scope>/cgroup.procs}, so that the agent's {@code ProcessOwner} names the
 * pod), in a mount namespace of its own where the share's host paths are bound at the container's paths
 * ({@link MpsAccess#mounts()}, {@code unshare --mount} and {@code mount --bind}), with exactly the share's variables
 * ({@link MpsAccess#env()}; no other {@code CUDA_MPS_*} from the check's own environment). Every process also carries
 * {@value #ROOT_VAR} (the check's root, by which a later run finds and ends what this one left) and
 * {@value #STEP_VAR} (which step started it, for logs and the rehearsal's stand-in).
 */
final class Probes {

    static final String ROOT_VAR = "EGPU_GPU_CHECK_ROOT";
    static final String STEP_VAR = "EGPU_GPU_CHECK_STEP";
    /** A process asking its environment for the whole card. */
    static final Map<String, String> RAISE =
            Map.of("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "100", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=81559M");

    /*
     * $1 the container's cgroup directory or empty, then host path and container path pairs up to "--", then the
     * program and its arguments. set -e: a process that cannot join its cgroup or get its mounts does not run.
     */
    private static final String SCRIPT = """
            set -e
            cg=$1; shift
            if [ -n "$cg" ]; then echo $$ > "$cg/cgroup.procs"; fi
            while [ "$1" != -- ]; do mkdir -p "$2"; mount --bind "$1" "$2"; shift 2; done
            shift
            exec "$@"
            """;

    /**
     * Where a process runs, as a container of a pod would.
     *
     * @param cgroup its container's cgroup directory, or null for the check's own (a host process)
     * @param access what its container was given to reach its share, or null for nothing
     */
    record Where(Path cgroup, MpsAccess access) {
        static final Where HOST = new Where(null, null);
    }

    /** What a run of a program printed and how it ended. */
    record Run(List<String> command, int exit, String output) {}

    private final Path python;
    private final Path probe;
    private final Path root;
    private int starts;

    /** @param root the check's root: where the start files go */
    Probes(Path python, Path probe, Path root) {
        this.python = python;
        this.probe = probe;
        this.root = root;
    }

    /**
     * A probe started where {@code where} says, with the share's variables and then {@code env} (a pod's own
     * attempts: they replace the share's).
     *
     * @param step names the probe in logs and errors, and in its {@value #STEP_VAR}
     */
    Probe start(String step, Where where, Map<String, String> env, String... args) {
        List<String> program = new ArrayList<>(List.of(python.toString(), probe.toString()));
        program.addAll(List.of(args));
        System.err.printf("gpu-isolation: probe %s: %s%n", step, String.join(" ", args));
        return new Probe(step, builder(step, where, env, program));
    }

    /** Runs {@code command} where {@code where} says, {@code stdin} as its input, killed after {@code timeout}. */
    Run run(String step, Where where, Map<String, String> env, List<String> command, String stdin, Duration timeout) {
        ProcessBuilder pb = builder(step, where, env, command).redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Run(command, -1, "cannot start: " + e.getMessage());
        }
        CompletableFuture<String> output =
                CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()), Thread::startVirtualThread);
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // it exited without reading its input; its exit code and output say why
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Run(command, -1, "did not finish within " + timeout);
            }
            return new Run(
                    command, p.exitValue(), output.get(5, TimeUnit.SECONDS).strip());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Run(command, -1, "interrupted");
        } catch (Exception e) {
            return new Run(command, p.exitValue(), "(output unreadable: " + e + ")");
        }
    }

    private ProcessBuilder builder(String step, Where where, Map<String, String> env, List<String> program) {
        if (GpuIsolationCheck.stopping) {
            throw new IllegalStateException("the check is being ended: " + step + " not started");
        }
        List<String> command = new ArrayList<>();
        Map<String, String> mounts =
                where.access() == null ? Map.of() : where.access().mounts();
        if (!mounts.isEmpty()) {
            command.addAll(List.of("unshare", "--mount", "--propagation", "private", "--"));
        }
        command.addAll(List.of(
                "/bin/sh",
                "-c",
                SCRIPT,
                "sh",
                where.cgroup() == null ? "" : where.cgroup().toString()));
        mounts.forEach((host, container) -> command.addAll(List.of(host, container)));
        command.add("--");
        command.addAll(program);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("CUDA_MPS_"));
        if (where.access() != null) {
            pb.environment().putAll(where.access().env());
        }
        pb.environment().put(ROOT_VAR, root.toString());
        pb.environment().put(STEP_VAR, step);
        pb.environment().putAll(env);
        return pb;
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new path for processes to wait on before they multiply (created by {@link #touch}). */
    synchronized Path startFile() {
        return root.resolve("start-" + (++starts));
    }

    /** Once every process holds its memory and has warmed up, they all start multiplying at once. */
    static void startTogether(List<Probe> running, Path go, Duration timeout) {
        running.forEach(x -> x.await("holding", timeout));
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
