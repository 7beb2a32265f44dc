package io.elasticgpu.bench.gpu;

import io.elasticgpu.node.discovery.ProcessOwner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The fake pods' cgroups, named as kubelet (systemd cgroup driver) and containerd name a burstable pod's container:
 * {@code kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope},
 * under the host's cgroup v2 hierarchy. A probe writes itself into its container's {@code cgroup.procs} before it
 * execs, so that the agent's production paths see a pod's process: {@code ProcessOwner} (usage attribution, the
 * watchdog's bypass kill, {@code GpuShareExceeded}) and, with MPS v3 and dmem, the container's memory limit. Where
 * cgroup v2 is not there or a process cannot be moved into a pod's cgroup, {@link #available} is false and
 * {@link #reason} says why; the check goes on without.
 */
final class PodCgroups {

    private static final List<String> PARENTS = List.of("kubepods.slice", "kubepods-burstable.slice");

    private final Path base;
    private final String reason;
    private final Path record;
    private String dmem = "not tried";
    private final List<Path> created =
            new java.util.concurrent.CopyOnWriteArrayList<>(); // directories this run made, parents first

    private PodCgroups(Path base, String reason, Path record) {
        this.base = base;
        this.reason = reason;
        this.record = record;
    }

    /**
     * The fake pods' cgroups under {@code option}'s hierarchy: {@code auto} is {@code /sys/fs/cgroup} where it is
     * cgroup v2 (it has {@code cgroup.controllers}), else the v2 hierarchy of a hybrid host
     * ({@code /sys/fs/cgroup/unified}), which {@code /proc/<pid>/cgroup} names on its {@code 0::} line too.
     *
     * @param record where the directories this run makes are listed, so that a later run removes the parent slices
     *               this one made and no others ({@link #removeStale})
     */
    static PodCgroups create(String option, Path record) {
        Optional<Path> base = hierarchy(option);
        if (base.isEmpty()) {
            return new PodCgroups(
                    null,
                    "no cgroup v2 hierarchy: %s has no cgroup.controllers"
                            .formatted(option.equals("auto") ? "/sys/fs/cgroup (nor /sys/fs/cgroup/unified)" : option),
                    record);
        }
        PodCgroups c = new PodCgroups(base.get(), null, record);
        try {
            Path dir = base.get();
            for (String p : PARENTS) {
                dir = dir.resolve(p);
                if (!Files.isDirectory(dir)) {
                    c.made(dir);
                }
            }
            for (Pod pod : Pod.BOTH) {
                Path slice = dir.resolve(podSlice(pod));
                c.made(slice);
                c.made(slice.resolve(scope(pod)));
            }
            for (Pod pod : Pod.BOTH) {
                String seen = moved(c.container(pod));
                Optional<ProcessOwner> owner = ProcessOwner.parse(seen);
                if (!owner.equals(Optional.of(new ProcessOwner(pod.uid(), pod.containerId())))) {
                    c.remove();
                    return new PodCgroups(
                            null,
                            ("a process moved into %s shows /proc/self/cgroup \"%s\", which the agent reads as %s,"
                                            + " not pod %s container %s")
                                    .formatted(c.container(pod), seen.strip(), owner, pod.uid(), pod.containerId()),
                            record);
                }
            }
            c.dmem = c.enableDmem();
            return c;
        } catch (IOException | RuntimeException e) {
            c.remove();
            return new PodCgroups(
                    null, "cannot make the fake pods' cgroups under %s: %s".formatted(base.get(), e), record);
        }
    }

    /**
     * Where the kernel has the dmem controller, it is enabled from the hierarchy's root down to the containers'
     * cgroups (as a node with dmem would have it), so that the v3 layout can hold a container's device memory in its
     * cgroup ({@code nvidia-smi memory-limits} needs dmem files on the container's cgroup). Returns what was done.
     */
    private String enableDmem() {
        try {
            if (!Files.readString(base.resolve("cgroup.controllers")).contains("dmem")) {
                return "no dmem controller in " + base.resolve("cgroup.controllers");
            }
            List<Path> chain = new ArrayList<>(List.of(base));
            Path dir = base;
            for (String p : PARENTS) {
                dir = dir.resolve(p);
                chain.add(dir);
            }
            for (Pod pod : Pod.BOTH) {
                chain.add(dir.resolve(podSlice(pod)));
            }
            List<String> enabled = new ArrayList<>();
            for (Path d : chain) {
                Path control = d.resolve("cgroup.subtree_control");
                if (!Files.readString(control).contains("dmem")) {
                    Files.writeString(control, "+dmem");
                    enabled.add(d.toString());
                }
            }
            return "dmem on the containers' cgroups; enabled in " + enabled;
        } catch (IOException | RuntimeException e) {
            return "dmem could not be enabled down to the containers: " + e;
        }
    }

    private void made(Path dir) throws IOException {
        Files.createDirectory(dir);
        created.add(dir);
        Files.writeString(
                record, dir + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private static Optional<Path> hierarchy(String option) {
        List<Path> candidates = option.equals("auto")
                ? List.of(Path.of("/sys/fs/cgroup"), Path.of("/sys/fs/cgroup/unified"))
                : List.of(Path.of(option));
        return candidates.stream()
                .filter(p -> Files.isRegularFile(p.resolve("cgroup.controllers")))
                .findFirst();
    }

    /** What a shell moved into {@code dir} reads in its own {@code /proc/self/cgroup}. */
    private static String moved(Path dir) throws IOException {
        Process p = new ProcessBuilder(
                        "/bin/sh", "-c", "echo $$ > \"$0/cgroup.procs\" && cat /proc/self/cgroup", dir.toString())
                .redirectErrorStream(true)
                .start();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("moving a shell into " + dir + " did not end within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    boolean available() {
        return reason == null;
    }

    /** Why the fake pods have no cgroups, or null when they have. */
    String reason() {
        return reason;
    }

    /** The hierarchy they are under, or null. */
    Path base() {
        return base;
    }

    /** The container's cgroup directory, or null without pod cgroups. */
    Path container(Pod pod) {
        return reason == null ? parent(base).resolve(podSlice(pod)).resolve(scope(pod)) : null;
    }

    Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Pod pod : Pod.BOTH) {
            out.put(pod.name(), container(pod) == null ? null : container(pod).toString());
        }
        out.put("dmem", reason == null ? dmem : null);
        return out;
    }

    /** Ends the processes left in the fake pods' cgroups and removes the directories this run made. */
    synchronized void remove() {
        if (base == null) {
            return;
        }
        for (Path dir : List.copyOf(created).reversed()) {
            if (removeDir(dir)) {
                created.remove(dir);
            }
        }
    }

    /**
     * What an earlier run left: the fake pods' cgroups under every hierarchy {@code option} may name (their processes
     * ended), and the parent slices that run made ({@code record} lists them) when nothing else is in them.
     */
    static List<String> removeStale(String option, Path record) {
        List<String> removed = new ArrayList<>();
        List<Path> bases = option.equals("auto")
                ? List.of(Path.of("/sys/fs/cgroup"), Path.of("/sys/fs/cgroup/unified"))
                : List.of(Path.of(option));
        for (Path base : bases) {
            Path parent = parent(base);
            for (Pod pod : Pod.BOTH) {
                Path slice = parent.resolve(podSlice(pod));
                for (Path dir : List.of(slice.resolve(scope(pod)), slice)) {
                    if (Files.isDirectory(dir) && removeDir(dir)) {
                        removed.add(dir.toString());
                    }
                }
            }
        }
        List<String> made;
        try {
            made = Files.exists(record) ? Files.readAllLines(record) : List.of();
        } catch (IOException e) {
            made = List.of();
        }
        for (String line : made.reversed()) {
            Path dir = Path.of(line.strip());
            if (!line.isBlank() && Files.isDirectory(dir) && empty(dir) && removeDir(dir)) {
                removed.add(dir.toString());
            }
        }
        return removed;
    }

    private static Path parent(Path base) {
        Path dir = base;
        for (String p : PARENTS) {
            dir = dir.resolve(p);
        }
        return dir;
    }

    private static String podSlice(Pod pod) {
        return "kubepods-burstable-pod" + pod.uid().replace('-', '_') + ".slice";
    }

    private static String scope(Pod pod) {
        return "cri-containerd-" + pod.containerId() + ".scope";
    }

    /** No child cgroup and no process. */
    private static boolean empty(Path dir) {
        try (var children = Files.list(dir)) {
            return children.noneMatch(Files::isDirectory) && procs(dir).isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private static List<Long> procs(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("cgroup.procs")).stream()
                    .filter(l -> !l.isBlank())
                    .map(l -> Long.parseLong(l.strip()))
                    .toList();
        } catch (IOException | NumberFormatException e) {
            return List.of();
        }
    }

    /** Kills the cgroup's processes, waits up to 3 s for them to leave it, and removes it. */
    private static boolean removeDir(Path dir) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Long> left = procs(dir);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            left = procs(dir);
        }
        try {
            Files.delete(dir);
            return true;
        } catch (IOException e) {
            System.err.printf("gpu-isolation: cannot remove cgroup %s: %s%n", dir, e);
            return false;
        }
    }
}
