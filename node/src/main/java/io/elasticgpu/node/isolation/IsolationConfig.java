package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.nio.file.Path;
import java.time.Duration;

/**
 * How the agent holds shares to their limits. Immutable; validated on construction with messages naming the flag.
 *
 * @param mode              {@code NONE}: the container is told its share and nothing enforces it; {@code MPS}: CUDA
 *                          MPS holds each share, in the way {@code layout} says
 * @param layout            how MPS servers are laid out on the node ({@code --mps-layout}): {@link Layout}
 * @param program           {@code nvidia-cuda-mps-control} ({@code --mps-control})
 * @param root              where the shares' directories live on the host ({@code --mps-root}); best on a tmpfs
 *                          ({@code /run})
 * @param hostNamespaces    launch daemons in the host's mount and cgroup namespaces ({@code --mps-host-namespaces}):
 *                          needed when the agent runs in a container, so that paths are the host's and the daemons
 *                          outlive the agent's container
 * @param cgroupRoot        where cgroup hierarchies are mounted as the launch sees them, to move each daemon out of
 *                          the agent's cgroup ({@code --mps-cgroup-root}); empty leaves it there
 * @param checkEvery        how often daemons are checked and restarted, their limits read back, and the process
 *                          counts enforced
 * @param timeout           the longest one run of the control program may take
 * @param contextReserveMib MiB of each process's share left out of its MPS memory limit for its CUDA context, which
 *                          MPS does not count ({@code --mps-context-reserve-mib}; the webhook is given the same)
 * @param shmMib            the size of each share's {@code /dev/shm} tmpfs ({@code --mps-shm-mib}), for a pod that
 *                          brings none of its own
 * @param nvidiaSmi         {@code nvidia-smi} ({@code --nvidia-smi}): with {@link Layout#V3} it sets each pod's
 *                          memory limit on its cgroup ({@code nvidia-smi memory-limits})
 */
public record IsolationConfig(
        Mode mode,
        Layout layout,
        Path program,
        Path root,
        boolean hostNamespaces,
        String cgroupRoot,
        Duration checkEvery,
        Duration timeout,
        long contextReserveMib,
        long shmMib,
        Path nvidiaSmi) {

    public enum Mode {
        NONE,
        MPS
    }

    /**
     * How MPS servers are laid out on the node: which limits a pod cannot raise, and whether two busy shares of one
     * card compute side by side ({@code docs/isolation.md} says mode by mode).
     */
    public enum Layout {
        /** {@link #V3} where the control program offers MPS v3, {@link #PER_SHARE} elsewhere. */
        AUTO("auto"),
        /**
         * One control daemon per share, its limits set on its side: memory and compute held where the pod cannot
         * raise them, but the card time-slices between the shares' servers.
         */
        PER_SHARE("per-share"),
        /**
         * One control daemon per card serving every share of it side by side; each share's limits are in its
         * containers' environment, which a pod can raise (the agent reports what it uses beyond them).
         */
        PER_CARD("per-card"),
        /**
         * MPS v3: one control daemon, one server per card, one namespace per share with its limits, each pod's
         * memory also held by its cgroup ({@code dmem}) where the driver and kernel have it.
         */
        V3("v3");

        private final String flag;

        Layout(String flag) {
            this.flag = flag;
        }

        /** As the flag and the node's status write it. */
        public String flag() {
            return flag;
        }

        /**
         * @throws IllegalArgumentException naming the flag for anything but auto, per-share, per-card and v3
         */
        public static Layout of(String value) {
            for (Layout l : values()) {
                if (l.flag.equals(value)) {
                    return l;
                }
            }
            throw new IllegalArgumentException("--mps-layout must be auto, per-share, per-card or v3, was " + value);
        }
    }

    public static final Path DEFAULT_PROGRAM = Path.of("/usr/bin/nvidia-cuda-mps-control");
    public static final Path DEFAULT_ROOT = Path.of("/run/elastic-gpu/mps");
    public static final Path DEFAULT_NVIDIA_SMI = Path.of("/usr/bin/nvidia-smi");
    /** The size of a share's {@code /dev/shm} by default: what container runtimes give a pod's. */
    public static final long DEFAULT_SHM_MIB = 64;

    public static final IsolationConfig NONE = new IsolationConfig(
            Mode.NONE,
            Layout.AUTO,
            DEFAULT_PROGRAM,
            DEFAULT_ROOT,
            false,
            "",
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            MpsLimits.DEFAULT_CONTEXT_RESERVE_MIB,
            DEFAULT_SHM_MIB,
            DEFAULT_NVIDIA_SMI);

    public IsolationConfig {
        requireNonNull(mode, "mode");
        requireNonNull(layout, "layout");
        requireNonNull(program, "program");
        requireNonNull(root, "root");
        requireNonNull(cgroupRoot, "cgroupRoot");
        requireNonNull(checkEvery, "checkEvery");
        requireNonNull(timeout, "timeout");
        requireNonNull(nvidiaSmi, "nvidiaSmi");
        if (checkEvery.isNegative() || checkEvery.isZero() || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(
                    "isolation: the check period and the control timeout must be positive, were %s and %s"
                            .formatted(checkEvery, timeout));
        }
        if (!root.isAbsolute()) {
            throw new IllegalArgumentException("--mps-root must be an absolute path, was " + root);
        }
        if (contextReserveMib < 0 || contextReserveMib > MpsLimits.MAX_CONTEXT_RESERVE_MIB) {
            throw new IllegalArgumentException("--mps-context-reserve-mib must be 0..%d, was %d"
                    .formatted(MpsLimits.MAX_CONTEXT_RESERVE_MIB, contextReserveMib));
        }
        if (shmMib < 1 || shmMib > 1 << 20) {
            throw new IllegalArgumentException("--mps-shm-mib must be 1..1048576, was " + shmMib);
        }
    }

    /** MPS isolation with the defaults of the chart's other settings. */
    public static IsolationConfig mps(Path program, Path root) {
        return new IsolationConfig(
                Mode.MPS,
                NONE.layout,
                program,
                root,
                false,
                "",
                NONE.checkEvery,
                NONE.timeout,
                NONE.contextReserveMib,
                NONE.shmMib,
                NONE.nvidiaSmi);
    }

    public IsolationConfig withHost(boolean enterHostNamespaces, String cgroups) {
        return new IsolationConfig(
                mode,
                layout,
                program,
                root,
                enterHostNamespaces,
                cgroups,
                checkEvery,
                timeout,
                contextReserveMib,
                shmMib,
                nvidiaSmi);
    }

    public IsolationConfig withTiming(Duration check, Duration controlTimeout) {
        return new IsolationConfig(
                mode,
                layout,
                program,
                root,
                hostNamespaces,
                cgroupRoot,
                check,
                controlTimeout,
                contextReserveMib,
                shmMib,
                nvidiaSmi);
    }

    public IsolationConfig withLayout(Layout l) {
        return new IsolationConfig(
                mode,
                l,
                program,
                root,
                hostNamespaces,
                cgroupRoot,
                checkEvery,
                timeout,
                contextReserveMib,
                shmMib,
                nvidiaSmi);
    }

    /** With {@code reserveMib} of each process's share kept for its CUDA context and {@code shm} MiB of /dev/shm. */
    public IsolationConfig withMemory(long reserveMib, long shm) {
        return new IsolationConfig(
                mode,
                layout,
                program,
                root,
                hostNamespaces,
                cgroupRoot,
                checkEvery,
                timeout,
                reserveMib,
                shm,
                nvidiaSmi);
    }

    public IsolationConfig withNvidiaSmi(Path smi) {
        return new IsolationConfig(
                mode,
                layout,
                program,
                root,
                hostNamespaces,
                cgroupRoot,
                checkEvery,
                timeout,
                contextReserveMib,
                shmMib,
                smi);
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
