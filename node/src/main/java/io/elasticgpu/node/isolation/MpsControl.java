package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * NVIDIA's MPS control program, {@code nvidia-cuda-mps-control}, as the agent runs it: {@link #launch} starts one
 * control daemon ({@code -d}) for one share, {@link #send} sends one command to a running daemon through its pipe
 * directory, as {@code echo command | nvidia-cuda-mps-control} does. Every run has a timeout, so a hung daemon never
 * hangs the agent. Stateless and thread-safe.
 *
 * <p>A daemon is launched through {@code /bin/sh} with a short script: optionally into a cgroup of its own outside the
 * agent's (so that the container runtime does not kill it with the agent's container), then into a mount namespace of
 * its own where the share's {@code shm} directory is {@code /dev/shm} (MPS clients and their server talk through
 * shared memory there, so each share's is apart from every other's), then {@code exec nvidia-cuda-mps-control -d}.
 * With {@code hostNamespaces} the script first enters the host's mount and cgroup namespaces ({@code nsenter} into
 * process 1), so that an agent in a container starts daemons that live on the host.
 */
public final class MpsControl {

    /** The file the control daemon writes its pid into, in its pipe directory (NVIDIA's MPS documentation). */
    public static final String PID_FILE = "nvidia-cuda-mps-control.pid";
    /** The cgroup the daemons are moved into, under every hierarchy of {@code cgroupRoot}. */
    static final String CGROUP = "elasticgpu-mps";

    /*
     * $1 the share's directory, $2 the control program, $3 the cgroup root or empty, $4 the size of the share's
     * /dev/shm tmpfs in MiB or 0 for none, then the daemon's own arguments. Each hierarchy that has a cgroup.procs (the
     * root itself under cgroup v2, one per controller under v1) gets the daemon's shell, and so the daemon, in its
     * elasticgpu-mps cgroup. The tmpfs is mounted where the launch runs (the host's mount namespace with
     * hostNamespaces), so that the container runtime's bind mount of the share's shm directory is that tmpfs.
     */
    private static final String SCRIPT = """
            set -e
            share="$1"; program="$2"; cgroups="$3"; shm="$4"; shift 4
            if [ -n "$cgroups" ]; then
              for h in "$cgroups" "$cgroups"/*; do
                if [ -f "$h/cgroup.procs" ]; then mkdir -p "$h/%s" && echo $$ > "$h/%s/cgroup.procs"; fi
              done
            fi
            if [ "$shm" != 0 ] && ! mountpoint -q "$share/shm"; then
              mount -t tmpfs -o "size=${shm}m,mode=1777,nosuid,nodev" elasticgpu-mps-shm "$share/shm"
            fi
            exec unshare --mount --propagation private -- /bin/sh -c 'mount --bind "$0/shm" /dev/shm && exec "$@"' \
            "$share" "$program" "$@"
            """.formatted(CGROUP, CGROUP);

    private final Path program;
    private final boolean hostNamespaces;
    private final String cgroupRoot;
    private final Duration timeout;
    private final Path proc;

    /**
     * @param program        {@code nvidia-cuda-mps-control}
     * @param hostNamespaces enter the host's mount and cgroup namespaces to launch daemons
     * @param cgroupRoot     where the cgroup hierarchies are mounted (as the launch sees them), or empty to leave the
     *                       daemons in the agent's cgroup
     * @param timeout        the longest any run of the program may take
     */
    public MpsControl(Path program, boolean hostNamespaces, String cgroupRoot, Duration timeout) {
        this(program, hostNamespaces, cgroupRoot, timeout, Path.of("/proc"));
    }

    /** @param proc the host's {@code /proc}, where the agent finds the daemons it starts */
    public MpsControl(Path program, boolean hostNamespaces, String cgroupRoot, Duration timeout, Path proc) {
        this.program = program;
        this.hostNamespaces = hostNamespaces;
        this.cgroupRoot = cgroupRoot;
        this.timeout = timeout;
        this.proc = proc;
    }

    /**
     * The program named by the agent's flag, checked before anything starts.
     *
     * @throws IllegalArgumentException naming the flag when it is missing or not executable
     */
    public static Path check(Path program, String flag) {
        if (!Files.isRegularFile(program) || !Files.isExecutable(program)) {
            throw new IllegalArgumentException(("%s %s: no executable file there; isolation by MPS needs NVIDIA's"
                            + " nvidia-cuda-mps-control on the node (it ships with the driver, e.g. "
                            + "/usr/bin/nvidia-cuda-mps-control);"
                            + " pass its path with %s, or run without isolation")
                    .formatted(flag, program, flag));
        }
        return program;
    }

    public Path program() {
        return program;
    }

    /** The host's {@code /proc} as the agent sees it. */
    public Path proc() {
        return proc;
    }

    /** Whether {@code daemon} is still the running control daemon it was. */
    public boolean alive(DaemonProcess daemon) {
        return daemon.alive(proc, program.getFileName().toString());
    }

    /**
     * Starts a control daemon for the share in {@code dirs} with the limits in its environment from the first instant
     * (the daemon's defaults for every server it starts), and returns it once it serves: once its pid file is written
     * and the agent has found the daemon's process by what a container cannot forge ({@link DaemonProcess#find}).
     *
     * @param cards      the uuids of the share's cards, which the daemon alone may see, in the share's order; empty
     *                   for a daemon that may see every card
     * @param shmMib     the size of the tmpfs mounted on the share's {@code shm} directory, 0 for none
     * @param daemonArgs the daemon's arguments ({@code -d}, and {@code -p 3} for MPS v3)
     * @throws MpsException when the launch fails or no daemon serves within the timeout
     */
    public DaemonProcess launch(
            MpsDirs dirs,
            List<String> cards,
            Map<String, String> limitsEnvironment,
            long shmMib,
            List<String> daemonArgs) {
        List<String> command = new ArrayList<>();
        if (hostNamespaces) {
            command.addAll(List.of("nsenter", "--target", "1", "--mount", "--cgroup", "--"));
        }
        command.addAll(List.of(
                "/bin/sh",
                "-c",
                SCRIPT,
                "sh",
                dirs.share().toString(),
                program.toString(),
                cgroupRoot,
                Long.toString(shmMib)));
        command.addAll(daemonArgs);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("CUDA_MPS_PIPE_DIRECTORY", dirs.pipe().toString());
        pb.environment().put("CUDA_MPS_LOG_DIRECTORY", dirs.log().toString());
        if (cards.isEmpty()) {
            pb.environment().remove("CUDA_VISIBLE_DEVICES"); // every card, whatever the agent itself was given
        } else {
            pb.environment().put("CUDA_VISIBLE_DEVICES", String.join(",", cards));
        }
        pb.environment().putAll(limitsEnvironment);
        // To a file, not a pipe: the daemon inherits the launcher's output and keeps it open for its whole life.
        Path launchLog = dirs.log().resolve("launch.log");
        pb.redirectOutput(launchLog.toFile());
        Result r = run(pb, "");
        if (r.exit() != 0) {
            throw new MpsException("starting the MPS control daemon for %s failed (exit %d): %s"
                    .formatted(dirs.share(), r.exit(), readQuietly(launchLog)));
        }
        return awaitDaemon(dirs);
    }

    /**
     * Waits, on the pipe directory's change notifications, for the daemon's pid file, then for the daemon's process
     * as {@link DaemonProcess#find} knows it.
     */
    private DaemonProcess awaitDaemon(MpsDirs dirs) {
        Path pipe = dirs.pipe();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (WatchService watch = pipe.getFileSystem().newWatchService()) {
            pipe.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (true) {
                long left = deadline - System.nanoTime();
                if (pid(pipe) > 0) {
                    var found = DaemonProcess.find(proc, program.getFileName().toString(), pipe);
                    if (found.isPresent()) {
                        return found.get();
                    }
                    if (left <= 0) {
                        throw new MpsException(("the MPS control daemon for %s wrote its pid file, but no process of"
                                        + " %s outside every pod serves %s; see its log in %s")
                                .formatted(dirs.share(), program.getFileName(), pipe, dirs.log()));
                    }
                } else if (left <= 0) {
                    throw new MpsException("the MPS control daemon for %s wrote no %s within %d ms; see its log in %s"
                            .formatted(pipe, PID_FILE, timeout.toMillis(), dirs.log()));
                }
                var key = watch.poll(
                        Math.min(Math.max(left, 1), TimeUnit.MILLISECONDS.toNanos(20)), TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        } catch (IOException | ClosedWatchServiceException e) {
            throw new MpsException("cannot watch %s for the daemon's pid file: %s".formatted(pipe, e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpsException("interrupted while waiting for the MPS control daemon in " + pipe, e);
        }
    }

    /** Ends the share's {@code /dev/shm} tmpfs, if one is mounted there, where the launch mounted it. */
    public void unmountShm(MpsDirs dirs) {
        List<String> command = new ArrayList<>();
        if (hostNamespaces) {
            command.addAll(List.of("nsenter", "--target", "1", "--mount", "--"));
        }
        command.addAll(List.of(
                "/bin/sh",
                "-c",
                "if mountpoint -q \"$0\"; then umount -l \"$0\"; fi",
                dirs.shm().toString()));
        Result r = run(new ProcessBuilder(command), "");
        if (r.exit() != 0) {
            throw new MpsException("unmounting %s failed (exit %d): %s".formatted(dirs.shm(), r.exit(), r.output()));
        }
    }

    /**
     * Sends {@code command} to the daemon serving {@code pipe} and returns what it answered, trimmed.
     *
     * @throws MpsException when the program fails, says the daemon cannot be found, or outlives the timeout
     */
    public String send(Path pipe, String command) {
        return run(pipe, command + "\n", command);
    }

    /**
     * Sends several commands in one run of the program (it reads commands from its input until the end) and returns
     * its answer's lines, blank ones left out: for commands that answer one line each, one line per command.
     *
     * @throws MpsException as {@link #send}
     */
    public List<String> sendAll(Path pipe, List<String> commands) {
        String answer = run(pipe, String.join("\n", commands) + "\n", commands.size() + " commands");
        return answer.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /**
     * Runs the program with {@code arguments} (MPS v3's {@code <module> <verb> ...}) against the daemon serving
     * {@code pipe} and returns what it printed, trimmed.
     *
     * @throws MpsException as {@link #send}
     */
    public String call(Path pipe, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(program.toString());
        command.addAll(arguments);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
        Result r = run(pb, "");
        if (r.exit() != 0) {
            throw new MpsException("MPS control %s: \"%s\" failed (exit %d): %s"
                    .formatted(
                            pipe,
                            String.join(" ", arguments),
                            r.exit(),
                            r.output().strip()));
        }
        return r.output().strip();
    }

    private String run(Path pipe, String input, String what) {
        ProcessBuilder pb = new ProcessBuilder(program.toString());
        pb.environment().put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
        Result r = run(pb, input);
        if (r.exit() != 0) {
            throw new MpsException(
                    "MPS control %s: \"%s\" failed (exit %d): %s".formatted(pipe, what, r.exit(), r.output()));
        }
        return r.output().strip();
    }

    /**
     * The pid in the daemon's pid file, or -1 when there is none or it cannot be read. The file is in the pipe
     * directory, which the share's containers can write: the agent reads it only to know that a daemon has started,
     * never to know which process it is.
     */
    public static long pid(Path pipe) {
        try {
            return Long.parseLong(Files.readString(pipe.resolve(PID_FILE)).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private record Result(int exit, String output) {}

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private Result run(ProcessBuilder pb, String stdin) {
        pb.redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new MpsException("cannot run %s: %s".formatted(pb.command().getFirst(), e.getMessage()), e);
        }
        CompletableFuture<String> output =
                CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()), Thread::startVirtualThread);
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the program exited without reading its input; its exit code and output say why
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new MpsException("%s did not finish within %d ms (%s)"
                        .formatted(
                                program.getFileName(),
                                timeout.toMillis(),
                                String.join(
                                        " ",
                                        pb.command()
                                                .subList(
                                                        0,
                                                        Math.min(3, pb.command().size())))));
            }
            return new Result(p.exitValue(), output.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new MpsException("interrupted while running " + program.getFileName(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new MpsException("reading what %s answered: %s".formatted(program.getFileName(), e), e);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
