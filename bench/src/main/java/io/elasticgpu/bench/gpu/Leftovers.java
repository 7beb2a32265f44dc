package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.isolation.MpsControl;
import io.elasticgpu.node.isolation.MpsException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a run of the check leaves under its root, found and ended: its probes (every one carries
 * {@value Probes#ROOT_VAR}), the MPS control daemons and servers whose pipe directory is under the root (found, as the
 * agent's {@code DaemonProcess} finds a daemon, by their environment in {@code /proc}; each daemon asked to
 * {@code quit} first, then killed), the tmpfs mounts under it, the fake pods' cgroups; and, before a run, the root
 * itself with every start file and record in it, so that a rerun never reads what an earlier run wrote. A root is
 * deleted only when it is the check's ({@value #MARKER} in it) or empty.
 */
final class Leftovers {

    static final String MARKER = ".egpu-gpu-check";
    static final String CGROUPS = "cgroups.txt";
    private static final Duration QUIT = Duration.ofSeconds(5);

    private Leftovers() {}

    /**
     * Before a run: everything an earlier run left, then an empty root with its marker.
     *
     * @throws IllegalStateException when {@code root} holds files that are not the check's
     */
    static Map<String, Object> before(Path root, Path control, String cgroupOption) throws IOException {
        if (!root.isAbsolute() || root.getNameCount() < 2) {
            throw new IllegalArgumentException("--root must be an absolute path two levels deep or more, was " + root);
        }
        Map<String, Object> out = ended(root, control);
        out.put("cgroupsRemoved", PodCgroups.removeStale(cgroupOption, root.resolve(CGROUPS)));
        if (Files.isDirectory(root)) {
            boolean ours = Files.exists(root.resolve(MARKER));
            try (Stream<Path> files = Files.list(root)) {
                if (!ours && files.findAny().isPresent()) {
                    throw new IllegalStateException(("--root %s holds files that are not the GPU check's (no %s);"
                                    + " name an empty or new directory")
                            .formatted(root, MARKER));
                }
            }
            delete(root);
            out.put("rootRemoved", true);
        }
        Files.createDirectories(root);
        Files.writeString(root.resolve(MARKER), "the GPU isolation check's root; the next run deletes it\n");
        return out;
    }

    /**
     * Ends what runs under {@code dir}: the check's probes (when {@code dir} is the root), MPS daemons and servers
     * whose pipe directory is under it, and unmounts the tmpfs mounts under it. The directory stays (its MPS logs).
     */
    static Map<String, Object> ended(Path dir, Path control) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<Long> probes = new ArrayList<>();
        List<String> daemons = new ArrayList<>();
        Set<String> quitted = new java.util.HashSet<>();
        long self = ProcessHandle.current().pid();
        Set<Long> mine = ProcessHandle.current().parent().stream()
                .map(ProcessHandle::pid)
                .collect(Collectors.toSet());
        for (long pid : pids()) {
            if (pid == self || mine.contains(pid)) {
                continue;
            }
            String env = environment(pid);
            if (env.contains("\n" + Probes.ROOT_VAR + "=" + dir + "\n")) {
                kill(pid);
                probes.add(pid);
                continue;
            }
            String cmd = cmdline(pid).replace('\0', ' ').strip();
            Optional<String> pipe = variable(env, "CUDA_MPS_PIPE_DIRECTORY");
            boolean under = pipe.map(p -> Path.of(p).startsWith(dir)).orElse(false)
                    || variable(env, "CUDA_MPS_LOG_DIRECTORY")
                            .map(p -> Path.of(p).startsWith(dir))
                            .orElse(false);
            if (!under && !(cmd.contains("nvidia-cuda-mps-server") && opensUnder(pid, dir))) {
                continue;
            }
            if (under && cmd.contains("nvidia-cuda-mps-control") && pipe.isPresent() && quitted.add(pipe.get())) {
                quit(control, pipe.get());
                ProcessHandle.of(pid)
                        .ifPresent(h -> h.onExit()
                                .completeOnTimeout(h, 2, TimeUnit.SECONDS)
                                .join());
            }
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                kill(pid);
            }
            daemons.add(pid + " " + cmd + pipe.map(p -> " (" + p + ")").orElse(""));
        }
        out.put("probesEnded", probes);
        out.put("mpsProcessesEnded", daemons);
        out.put("unmounted", unmount(dir));
        return out;
    }

    /** Asks the daemon serving {@code pipe} to quit, and gives it two seconds. */
    private static void quit(Path control, String pipe) {
        try {
            new MpsControl(control, false, "", QUIT).send(Path.of(pipe), "quit");
        } catch (MpsException | IllegalArgumentException e) {
            // not answering: killed
        }
    }

    private static List<Long> pids() {
        try (Stream<Path> all = Files.list(Path.of("/proc"))) {
            return all.map(p -> p.getFileName().toString())
                    .filter(n -> n.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(h -> {
            h.destroyForcibly();
            awaitGone(h, 2000);
        });
    }

    /** Waits up to {@code millis} for the process to be gone (polled: it need not be the check's child). */
    private static void awaitGone(ProcessHandle h, long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (h.isAlive() && System.nanoTime() < end) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The process's environment, each entry on its own line, with a newline before the first and after the last. */
    static String environment(long pid) {
        return "\n" + read(Path.of("/proc", Long.toString(pid), "environ")).replace('\0', '\n') + "\n";
    }

    static Optional<String> variable(String environment, String name) {
        int at = environment.indexOf("\n" + name + "=");
        if (at < 0) {
            return Optional.empty();
        }
        int from = at + name.length() + 2;
        return Optional.of(environment.substring(from, environment.indexOf('\n', from)));
    }

    /** Whether one of the process's open files is under {@code dir} (an MPS server holds its pipe directory's). */
    private static boolean opensUnder(long pid, Path dir) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(dir);
                } catch (IOException | RuntimeException e) {
                    return false;
                }
            });
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String cmdline(long pid) {
        return read(Path.of("/proc", Long.toString(pid), "cmdline"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Unmounts (lazily, deepest first) every mount point at or under {@code dir} in the check's mount namespace. */
    private static List<String> unmount(Path dir) {
        List<String> points = new ArrayList<>();
        for (String line : read(Path.of("/proc/self/mountinfo")).split("\n")) {
            String[] f = line.split(" ");
            if (f.length > 4) {
                String point = unescape(f[4]);
                if (Path.of(point).startsWith(dir)) {
                    points.add(point);
                }
            }
        }
        points.sort(Comparator.comparingInt(String::length).reversed());
        List<String> done = new ArrayList<>();
        for (String point : points) {
            try {
                Process p = new ProcessBuilder("umount", "-l", point)
                        .redirectErrorStream(true)
                        .start();
                if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    done.add(point);
                } else {
                    p.destroyForcibly();
                    done.add(point + " (umount failed: "
                            + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip() + ")");
                }
            } catch (IOException e) {
                done.add(point + " (" + e.getMessage() + ")");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return done;
    }

    /** mountinfo writes a space as \040, a tab as \011, a newline as \012 and a backslash as \134. */
    private static String unescape(String s) {
        return s.replace("\\040", " ")
                .replace("\\011", "\t")
                .replace("\\012", "\n")
                .replace("\\134", "\\");
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
