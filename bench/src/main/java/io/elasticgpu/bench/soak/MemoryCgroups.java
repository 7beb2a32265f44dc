package io.elasticgpu.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A memory cgroup per component, with the chart's memory limit, as the container would have: the kernel kills the
 * process that goes beyond it, and the JVM sizes its heap from it as it does in the container. cgroup v1 (the
 * {@code memory} hierarchy) or v2 (the unified one with the memory controller), whichever this machine lets the
 * harness write; where neither, {@link #available()} is false and the soak sizes each heap with {@code -Xmx} instead,
 * and says so in its result.
 */
final class MemoryCgroups implements AutoCloseable {

    private static final Path V1 = Path.of("/sys/fs/cgroup/memory");
    private static final Path V2 = Path.of("/sys/fs/cgroup");

    private final Path parent;
    private final boolean v2;
    private final String unavailable;
    private final Map<String, Path> groups = new LinkedHashMap<>();

    private MemoryCgroups(Path parent, boolean v2, String unavailable) {
        this.parent = parent;
        this.v2 = v2;
        this.unavailable = unavailable;
    }

    /** A parent group {@code elastic-gpu-soak-<run>} under the writable hierarchy, or none (then unavailable). */
    static MemoryCgroups create(String run) {
        String name = "elastic-gpu-soak-" + run;
        if (Files.isWritable(V1.resolve("cgroup.procs"))) {
            return tryCreate(V1.resolve(name), false);
        }
        if (Files.isWritable(V2.resolve("cgroup.subtree_control"))
                && controllers(V2).contains("memory")) {
            return tryCreate(V2.resolve(name), true);
        }
        return new MemoryCgroups(null, false, "no writable memory cgroup (v1 or v2) on this machine");
    }

    private static MemoryCgroups tryCreate(Path parent, boolean v2) {
        try {
            Files.createDirectories(parent);
            if (v2) {
                Files.writeString(parent.resolve("cgroup.subtree_control"), "+memory");
            }
            return new MemoryCgroups(parent, v2, null);
        } catch (IOException e) {
            return new MemoryCgroups(null, false, "cannot make a memory cgroup at " + parent + ": " + e.getMessage());
        }
    }

    private static String controllers(Path root) {
        try {
            return Files.readString(root.resolve("cgroup.controllers"));
        } catch (IOException e) {
            return "";
        }
    }

    boolean available() {
        return parent != null;
    }

    /** How the limits are held, for the result: the cgroup version and place, or why none. */
    String mode() {
        return available() ? (v2 ? "cgroup v2 " : "cgroup v1 ") + parent : "-Xmx only: " + unavailable;
    }

    /**
     * The command that enters {@code component}'s group (made with {@code limitMib} the first time) and then runs
     * its arguments; empty where no cgroup is available.
     */
    List<String> launcher(String component, long limitMib) {
        if (!available() || limitMib <= 0) {
            return List.of();
        }
        Path group = groups.computeIfAbsent(component, c -> make(c, limitMib));
        return List.of("/bin/sh", "-c", "echo $$ > '" + group.resolve("cgroup.procs") + "' && exec \"$@\"", "sh");
    }

    private Path make(String component, long limitMib) {
        Path group = parent.resolve(component);
        String bytes = Long.toString(limitMib * 1024 * 1024);
        try {
            Files.createDirectories(group);
            if (v2) {
                Files.writeString(group.resolve("memory.max"), bytes);
                write(group.resolve("memory.swap.max"), "0");
            } else {
                Files.writeString(group.resolve("memory.limit_in_bytes"), bytes);
                write(group.resolve("memory.memsw.limit_in_bytes"), bytes); // no swap beyond the limit either
            }
            return group;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set the memory limit of " + group + ": " + e.getMessage(), e);
        }
    }

    /** Where the file exists (swap accounting is optional). */
    private static void write(Path file, String value) throws IOException {
        if (Files.exists(file)) {
            Files.writeString(file, value);
        }
    }

    /** Processes the kernel killed for going beyond the limit, per component (only those that have a group). */
    Map<String, Long> oomKills() {
        Map<String, Long> kills = new LinkedHashMap<>();
        groups.forEach((component, group) -> kills.put(
                component,
                counter(group.resolve(v2 ? "memory.events" : "memory.oom_control"), "oom_kill")
                        .orElse(0L)));
        return kills;
    }

    /** The highest memory the group used, MiB, per component. */
    Map<String, Long> peakMib() {
        Map<String, Long> peak = new LinkedHashMap<>();
        groups.forEach((component, group) -> {
            try {
                Path file = group.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes");
                if (Files.exists(file)) {
                    peak.put(component, Long.parseLong(Files.readString(file).strip()) / (1024 * 1024));
                }
            } catch (IOException | NumberFormatException e) {
                // reported without it
            }
        });
        return peak;
    }

    /** {@code name N} in a flat-keyed cgroup file. */
    static Optional<Long> counter(Path file, String name) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] kv = line.trim().split("\\s+");
                if (kv.length == 2 && kv[0].equals(name)) {
                    return Optional.of(Long.parseLong(kv[1]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no such counter on this kernel
        }
        return Optional.empty();
    }

    /** Removes the groups (their processes are gone by now; a group still in use is left and named). */
    @Override
    public void close() {
        if (!available()) {
            return;
        }
        for (Path group : groups.values()) {
            delete(group);
        }
        delete(parent);
    }

    private static void delete(Path group) {
        try {
            Files.deleteIfExists(group);
        } catch (IOException e) {
            System.err.println("soak: memory cgroup " + group + " left behind: " + e.getMessage());
        }
    }
}
