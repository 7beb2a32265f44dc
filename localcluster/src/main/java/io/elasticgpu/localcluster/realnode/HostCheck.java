package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether this machine can run a real node: Linux, root with the capabilities containers need (mounts, network
 * namespaces), cgroups, the overlay file system, and the programs built. What is missing is said in one sentence.
 */
public final class HostCheck {

    /** The outcome: the machine can run a real node, or the one sentence that says what it lacks. */
    public sealed interface Verdict {
        record CanRun() implements Verdict {}

        record CannotRun(String reason) implements Verdict {}
    }

    static final int CAP_NET_ADMIN = 12;
    static final int CAP_SYS_ADMIN = 21;
    private static final Path PROC_STATUS = Path.of("/proc/self/status");

    private HostCheck() {}

    public static Verdict check(NodePrograms programs) {
        List<String> lacks = new ArrayList<>();
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
            return cannot(List.of("it is not Linux (os.name " + System.getProperty("os.name") + ")"));
        }
        String uid = statusField("Uid");
        if (uid == null || !uid.split("\\s+")[1].equals("0")) {
            lacks.add("it runs as uid " + (uid == null ? "?" : uid.split("\\s+")[1]) + ", not root");
        } else {
            BigInteger caps = new BigInteger(statusField("CapEff"), 16);
            if (!caps.testBit(CAP_SYS_ADMIN) || !caps.testBit(CAP_NET_ADMIN)) {
                lacks.add("root lacks CAP_SYS_ADMIN or CAP_NET_ADMIN (effective capabilities " + statusField("CapEff")
                        + ")");
            }
        }
        Path cgroups = Path.of("/sys/fs/cgroup");
        boolean v1 = Files.isDirectory(cgroups.resolve("memory")) && Files.isDirectory(cgroups.resolve("cpu"));
        boolean v2 = Files.isRegularFile(cgroups.resolve("cgroup.controllers"));
        if (!v1 && !v2) {
            lacks.add("no cgroup hierarchy with the cpu and memory controllers is mounted at /sys/fs/cgroup");
        }
        if (!overlayFs()) {
            lacks.add("the kernel has no overlay file system (/proc/filesystems)");
        }
        List<String> missing = programs.missing();
        if (!missing.isEmpty()) {
            lacks.add("missing " + String.join(", ", missing)
                    + " (build them with e2e/bin/build-binaries and e2e/bin/build-real-node)");
        }
        return lacks.isEmpty() ? new Verdict.CanRun() : cannot(lacks);
    }

    private static Verdict cannot(List<String> lacks) {
        return new Verdict.CannotRun("this machine cannot run a real node: " + String.join("; ", lacks) + ".");
    }

    private static boolean overlayFs() {
        try {
            return Files.readAllLines(Path.of("/proc/filesystems")).stream()
                    .anyMatch(l -> l.strip().endsWith("overlay"));
        } catch (IOException e) {
            return false;
        }
    }

    /** The value of a {@code Name:\tvalue} line of {@code /proc/self/status}, or null. */
    private static String statusField(String name) {
        try {
            return Files.readAllLines(PROC_STATUS).stream()
                    .filter(l -> l.startsWith(name + ":"))
                    .map(l -> l.substring(name.length() + 1).strip())
                    .findFirst()
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }
}
