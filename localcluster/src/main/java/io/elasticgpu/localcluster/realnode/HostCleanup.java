package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a real node leaves on the machine besides its processes, and its removal: the runtime's shims (they outlive
 * containerd by design), mounts under its state directory (kubelet's root, containers' file systems, network
 * namespaces), the pods' bridge, the state directory itself. Each step is bounded in time and says what it could
 * not undo rather than stopping.
 */
final class HostCleanup {

    private static final Duration COMMAND = Duration.ofSeconds(20);
    private static final Pattern OCTAL = Pattern.compile("\\\\([0-7]{3})");

    private HostCleanup() {}

    /**
     * SIGKILLs the shims of the containerd serving {@code socket}: those whose command line names that socket (each
     * shim is started with {@code -address <socket>}), so no other runtime's shim is touched.
     */
    static List<Long> killShims(Path socket) {
        String address = socket.toString();
        List<ProcessHandle> shims = ProcessHandle.allProcesses()
                .filter(p -> p.info()
                        .arguments()
                        .map(args -> Arrays.asList(args).contains(address))
                        .orElse(false))
                .toList();
        shims.forEach(ProcessHandle::destroyForcibly);
        return shims.stream().map(ProcessHandle::pid).toList();
    }

    /** Unmounts everything mounted under {@code dir}, inner mounts first, lazily (a busy mount goes once unused). */
    static List<String> unmountUnder(Path dir) {
        List<String> failed = new ArrayList<>();
        for (String mountPoint : mountsUnder(dir)) {
            HostCommand.Result r = HostCommand.run(List.of("umount", "--lazy", mountPoint), COMMAND);
            if (!r.succeeded() && mountsUnder(dir).contains(mountPoint)) {
                failed.add(mountPoint + ": " + r.output().strip());
            }
        }
        return failed;
    }

    /**
     * Mount points at or under {@code dir}, longest path first (so inner mounts first), from {@code
     * /proc/self/mountinfo}. */
    static List<String> mountsUnder(Path dir) {
        try {
            return mountsUnder(dir, Files.readAllLines(Path.of("/proc/self/mountinfo")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/mountinfo", e);
        }
    }

    /** The mount points at or under {@code dir} among {@code mountinfo}'s lines, longest path first. */
    static List<String> mountsUnder(Path dir, List<String> mountinfo) {
        String prefix = dir.toString();
        return mountinfo.stream()
                .map(l -> unescape(l.split(" ")[4]))
                .filter(m -> m.equals(prefix) || m.startsWith(prefix + "/"))
                .distinct()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toList();
    }

    /** Deletes the network link {@code name} if it exists (the pods' bridge; veth pairs go with their netns). */
    static String deleteLink(String name) {
        if (!Files.exists(Path.of("/sys/class/net", name))) {
            return null;
        }
        HostCommand.Result r = HostCommand.run(List.of("ip", "link", "delete", name), COMMAND);
        return r.succeeded()
                ? null
                : "ip link delete " + name + ": " + r.output().strip();
    }

    /** Deletes {@code dir} and everything in it, once nothing is mounted there. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }

    /** mountinfo writes space, tab, newline and backslash as {@code \ooo}. */
    private static String unescape(String field) {
        Matcher m = OCTAL.matcher(field);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 8))));
        }
        return m.appendTail(out).toString();
    }
}
