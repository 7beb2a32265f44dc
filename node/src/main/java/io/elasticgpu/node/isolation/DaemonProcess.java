package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One MPS control daemon as the agent knows it: its pid and its start time (in clock ticks since boot, field 22 of
 * {@code /proc/<pid>/stat}), which together name one process even after its pid is reused. The agent finds a daemon
 * by what a container cannot forge, never by the pid file the daemon writes into its pipe directory (which the share's
 * containers can write): a process of the control program whose environment names the share's pipe directory as the
 * host sees it, and whose cgroup is no pod's. Immutable.
 */
public record DaemonProcess(long pid, long startTicks) {

    /** No daemon. */
    public static final DaemonProcess NONE = new DaemonProcess(-1, -1);

    /** Whether this very process still runs the control program (a pid reused by another process is not). */
    public boolean alive(Path proc, String program) {
        return pid > 0 && of(proc, pid).filter(this::equals).isPresent() && runs(proc, pid, program);
    }

    /** The process {@code pid} with its start time, if it exists. */
    public static Optional<DaemonProcess> of(Path proc, long pid) {
        try {
            String stat = Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
            // comm may hold spaces and parentheses: the fields after it start after the last ')'
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new DaemonProcess(pid, Long.parseLong(after[19])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The control daemon serving {@code pipe}: the youngest process running {@code program} whose environment says
     * {@code CUDA_MPS_PIPE_DIRECTORY=pipe} and whose cgroup names no pod. A pod's process can name any program and
     * set any environment, but cannot leave its pod's cgroup.
     */
    public static Optional<DaemonProcess> find(Path proc, String program, Path pipe) {
        String wanted = "CUDA_MPS_PIPE_DIRECTORY=" + pipe;
        try (Stream<Path> all = Files.list(proc)) {
            return all.map(p -> p.getFileName().toString())
                    .filter(name -> name.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .filter(pid -> runs(proc, pid, program))
                    .filter(pid -> environment(proc, pid).contains("\n" + wanted + "\n"))
                    .filter(pid -> io.elasticgpu.node.discovery.ProcessOwner.of(proc, pid)
                            .isEmpty())
                    .map(pid -> of(proc, pid))
                    .flatMap(Optional::stream)
                    .max(Comparator.comparingLong(DaemonProcess::startTicks));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean runs(Path proc, long pid, String program) {
        try {
            String cmdline =
                    Files.readString(proc.resolve(Long.toString(pid)).resolve("cmdline"), StandardCharsets.ISO_8859_1);
            return cmdline.contains(program);
        } catch (IOException e) {
            return false;
        }
    }

    /** The process's environment, one {@code NAME=value} per NUL-separated entry, with each entry on its own line. */
    private static String environment(Path proc, long pid) {
        try {
            return "\n"
                    + Files.readString(proc.resolve(Long.toString(pid)).resolve("environ"), StandardCharsets.ISO_8859_1)
                            .replace('\0', '\n')
                    + "\n";
        } catch (IOException e) {
            return "";
        }
    }
}
