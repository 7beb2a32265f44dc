package io.elasticgpu.e2e.realnode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a container on the real node printed about itself ({@link #SCRIPT}): its environment, its mounts
 * ({@code /proc/self/mountinfo}) and the device nodes in its {@code /dev}, read back from the pod's log.
 *
 * @param env     the environment, by name
 * @param mounts  one per line of {@code /proc/self/mountinfo}
 * @param devices the names in {@code /dev}
 * @param files   what is in the MPS pipe directory and {@code /dev/shm}, by directory (those that exist)
 */
record ContainerReport(
        Map<String, String> env, List<Mount> mounts, List<String> devices, Map<String, List<String>> files) {

    /** The directories whose files the report lists. */
    static final List<String> LISTED = List.of("/tmp/nvidia-mps", "/dev/shm");

    /** A shell script for the container: the report, then {@code after} (e.g. {@code sleep 3600}). */
    static String script(String after) {
        return "echo '== env'; env; echo '== mounts'; cat /proc/self/mountinfo; echo '== devices'; ls /dev;"
                + " echo '== files'; for d in " + String.join(" ", LISTED)
                + "; do [ -d $d ] && echo \"$d:\" && ls -1a $d; done;"
                + " echo '== end'; " + after;
    }

    /** One mount: where it is in the container, what of its source file system it shows, and that file system. */
    record Mount(String root, String mountPoint, String fsType, String source) {}

    /** The report in {@code log}; empty until the log holds all of it. */
    static Optional<ContainerReport> parse(String log) {
        if (log == null || !log.contains("== end")) {
            return Optional.empty();
        }
        Map<String, String> env = new LinkedHashMap<>();
        List<Mount> mounts = new ArrayList<>();
        List<String> devices = new ArrayList<>();
        Map<String, List<String>> files = new LinkedHashMap<>();
        String section = "";
        String dir = "";
        for (String line : log.lines().toList()) {
            if (line.startsWith("== ")) {
                section = line.substring(3);
                if (section.equals("end")) {
                    break;
                }
                continue;
            }
            switch (section) {
                case "env" -> {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        env.put(line.substring(0, eq), line.substring(eq + 1));
                    }
                }
                case "mounts" -> {
                    // id parent major:minor root mount-point options [optional fields] - fstype source super-options
                    String[] f = line.split(" ");
                    int dash = List.of(f).indexOf("-");
                    mounts.add(new Mount(f[3], f[4], f[dash + 1], f[dash + 2]));
                }
                case "devices" -> devices.addAll(List.of(line.strip().split("\\s+")));
                case "files" -> {
                    if (line.endsWith(":") && LISTED.contains(line.substring(0, line.length() - 1))) {
                        dir = line.substring(0, line.length() - 1);
                        files.put(dir, new ArrayList<>());
                    } else if (!line.equals(".") && !line.equals("..") && !line.isBlank()) {
                        files.get(dir).add(line);
                    }
                }
                default -> {}
            }
        }
        return Optional.of(new ContainerReport(env, mounts, devices, files));
    }

    /**
     * The devices named by the NVIDIA container toolkit's volume-mount device list: what is mounted under {@code
     * /var/run/nvidia-container-devices}, by name.
     */
    List<String> deviceList() {
        String root = "/var/run/nvidia-container-devices/";
        return mounts.stream()
                .map(Mount::mountPoint)
                .filter(p -> p.startsWith(root))
                .map(p -> p.substring(root.length()))
                .toList();
    }

    /** The mount at {@code mountPoint} in the container. */
    Optional<Mount> mountAt(String mountPoint) {
        return mounts.stream().filter(m -> m.mountPoint().equals(mountPoint)).findFirst();
    }
}
