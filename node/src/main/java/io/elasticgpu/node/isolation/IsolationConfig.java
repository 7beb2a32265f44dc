package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How the agent holds shares to their limits. Immutable; validated on construction with messages naming the flag.
 *
 * @param mode           {@code NONE}: the container is told its share and nothing enforces it; {@code MPS}: each
 *                       share gets an MPS control daemon of its own with the share's limits
 * @param program        {@code nvidia-cuda-mps-control} ({@code --mps-control})
 * @param root           where the shares' directories live on the host ({@code --mps-root}); best on a tmpfs
 *                       ({@code /run}), since each share's shared memory is a directory there
 * @param hostNamespaces launch daemons in the host's mount and cgroup namespaces ({@code --mps-host-namespaces}):
 *                       needed when the agent runs in a container, so that paths are the host's and the daemons
 *                       outlive the agent's container
 * @param cgroupRoot     where cgroup hierarchies are mounted as the launch sees them, to move each daemon out of the
 *                       agent's cgroup ({@code --mps-cgroup-root}); empty leaves it there
 * @param checkEvery     how often daemons are checked and restarted, and the process counts enforced
 * @param timeout        the longest one run of the control program may take
 */
public record IsolationConfig(
        Mode mode,
        Path program,
        Path root,
        boolean hostNamespaces,
        String cgroupRoot,
        Duration checkEvery,
        Duration timeout) {

    public enum Mode {
        NONE,
        MPS
    }

    public static final Path DEFAULT_PROGRAM = Path.of("/usr/bin/nvidia-cuda-mps-control");
    public static final Path DEFAULT_ROOT = Path.of("/run/elastic-gpu/mps");
    public static final IsolationConfig NONE = new IsolationConfig(
            Mode.NONE, DEFAULT_PROGRAM, DEFAULT_ROOT, false, "", Duration.ofSeconds(1), Duration.ofSeconds(10));

    public IsolationConfig {
        requireNonNull(mode, "mode");
        requireNonNull(program, "program");
        requireNonNull(root, "root");
        requireNonNull(cgroupRoot, "cgroupRoot");
        requireNonNull(checkEvery, "checkEvery");
        requireNonNull(timeout, "timeout");
        if (checkEvery.isNegative() || checkEvery.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "isolation: the check period and the control timeout must be positive, were %s and %s"
                            .formatted(checkEvery, timeout));
        }
        if (!root.isAbsolute()) {
            throw new IllegalArgumentException("--mps-root must be an absolute path, was " + root);
        }
    }

    /** MPS isolation with the defaults of the chart's other settings. */
    public static IsolationConfig mps(Path program, Path root) {
        return new IsolationConfig(Mode.MPS, program, root, false, "", NONE.checkEvery(), NONE.timeout());
    }

    public IsolationConfig withHost(boolean enterHostNamespaces, String cgroups) {
        return new IsolationConfig(mode, program, root, enterHostNamespaces, cgroups, checkEvery, timeout);
    }

    public IsolationConfig withTiming(Duration check, Duration controlTimeout) {
        return new IsolationConfig(mode, program, root, hostNamespaces, cgroupRoot, check, controlTimeout);
    }

    /**
     * @param flag the mode's name as the flag spells it
     * @throws IllegalArgumentException for anything but {@code none} and {@code mps}
     */
    public static Mode mode(String flag) {
        return switch (flag) {
            case "none" -> Mode.NONE;
            case "mps" -> Mode.MPS;
            default -> throw new IllegalArgumentException("--isolation must be none or mps, was " + flag);
        };
    }
}
