package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The cgroup a real node's kubelet puts its pods under ({@code cgroupRoot}), in every mounted hierarchy: made before
 * kubelet starts (kubelet requires it to exist) and removed, with what kubelet made inside, once its containers are
 * gone.
 */
final class CgroupRoot {

    static final String NAME = "elasticgpu-real-node";
    private static final Path CGROUPS = Path.of("/sys/fs/cgroup");

    private CgroupRoot() {}

    static void create() {
        try {
            for (Path hierarchy : hierarchies()) {
                Path dir = Files.createDirectories(hierarchy.resolve(NAME));
                if (hierarchy.getFileName().toString().equals("cpuset")) {
                    // a cpuset cgroup runs nothing until it has cpus and memory nodes: its parent's
                    copyIfEmpty(hierarchy.resolve("cpuset.cpus"), dir.resolve("cpuset.cpus"));
                    copyIfEmpty(hierarchy.resolve("cpuset.mems"), dir.resolve("cpuset.mems"));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cgroup /" + NAME + ": " + e.getMessage(), e);
        }
    }

    /** SIGKILLs every process in the cgroups under the root (containers a killed runtime left running). */
    static void killProcesses() {
        for (Path hierarchy : hierarchies()) {
            Path root = hierarchy.resolve(NAME);
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(root)) {
                for (Path procs : all.filter(p -> p.getFileName().toString().equals("cgroup.procs"))
                        .toList()) {
                    for (String pid : Files.readAllLines(procs)) {
                        if (!pid.isBlank()) {
                            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                        }
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // a cgroup removed meanwhile; what is left is named by remove()
            }
        }
    }

    /** Removes the cgroups depth first; those still holding a process stay, and are named. */
    static List<String> remove() {
        List<String> left = new java.util.ArrayList<>();
        for (Path hierarchy : hierarchies()) {
            Path root = hierarchy.resolve(NAME);
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(root)) {
                for (Path dir : all.filter(Files::isDirectory)
                        .sorted(Comparator.reverseOrder())
                        .toList()) {
                    try {
                        Files.delete(dir);
                    } catch (IOException busy) {
                        left.add(dir.toString());
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                left.add(root + " (" + e.getMessage() + ")");
            }
        }
        return left;
    }

    /** The v1 hierarchies ({@code /sys/fs/cgroup/<controller>}), or the v2 root. */
    private static List<Path> hierarchies() {
        if (Files.isRegularFile(CGROUPS.resolve("cgroup.controllers"))) {
            return List.of(CGROUPS);
        }
        try (Stream<Path> dirs = Files.list(CGROUPS)) {
            return dirs.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + CGROUPS, e);
        }
    }

    private static void copyIfEmpty(Path from, Path to) throws IOException {
        if (Files.readString(to).isBlank()) {
            Files.writeString(to, Files.readString(from).strip());
        }
    }
}
