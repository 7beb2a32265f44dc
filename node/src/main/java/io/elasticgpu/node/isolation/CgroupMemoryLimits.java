package io.elasticgpu.node.isolation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Each pod container's device-memory limit on each of its cards, held by its cgroup: MPS v3 memory partitioning
 * through the cgroup v2 {@code dmem} controller, where the kernel (6.14 or later) enforces the limit and the driver
 * charges every allocation of the card against it, the CUDA context included. Limits are set with NVIDIA's own tool,
 * {@code nvidia-smi memory-limits -i <uuid> -n <cgroup dir> --soft-limit 0 --hard-limit <MiB>}, never by writing
 * {@code dmem.*} files: the tool resolves the card's region and keeps the driver's reservations on the parent cgroups.
 * The limit goes on the process's own leaf cgroup (from {@code /proc/<pid>/cgroup}, its {@code 0::} line), where
 * NVIDIA's guide shows {@code cudaMemGetInfo} reporting it as the card's total; every process of a container shares
 * that leaf, so the limit is the container's, not a process's. A process that made a cgroup below its container's
 * (which only a container with write access to the cgroup tree can) would get its own leaf and its own limit.
 *
 * <p>The soft limit is 0: a strict hard partition that reserves nothing, so that a container's cgroup removed by
 * kubelet leaves no reservation on its parents (the driver keeps each parent's {@code dmem.min} at the sum of its
 * leaves' soft limits, and NVIDIA says to zero a soft limit before removing its cgroup, which the agent cannot do
 * before kubelet does). With soft 0, MPS's eviction under pressure (a client within its soft limit needing memory
 * held by one above its own) never starts from these containers.
 *
 * <p>With {@code hostNamespaces} (an agent in a container) {@code nvidia-smi} runs in the host's mount and cgroup
 * namespaces ({@code nsenter --target 1 --mount --cgroup}), and so do the agent's reads of {@code /proc/<pid>/cgroup}
 * (whose path is relative to the reader's cgroup namespace) and of {@code dmem.*}: every path given here is then as
 * the host sees it. Stateless and thread-safe; every run has a timeout.
 */
public final class CgroupMemoryLimits {

    /** The backend {@link #backend} names when the kernel's dmem controller holds NVIDIA's cards. */
    public static final String DMEM = "dmem";

    private static final List<String> HOST = List.of("nsenter", "--target", "1", "--mount", "--cgroup", "--");
    private static final long MIB = 1024 * 1024;

    private final Path nvidiaSmi;
    private final Path cgroupfs;
    private final Path proc;
    private final List<String> enter;
    private final Duration timeout;
    private final Map<String, String> regions = new HashMap<>(); // card uuid -> its dmem region

    /**
     * @param nvidiaSmi      {@code nvidia-smi} ({@code --nvidia-smi})
     * @param cgroupfs       where cgroup v2 is mounted ({@code /sys/fs/cgroup}), as seen where {@code nvidia-smi}
     *                       runs: the host with {@code hostNamespaces}
     * @param proc           the host's {@code /proc}, as seen there too
     * @param hostNamespaces run {@code nvidia-smi} and every read in the host's mount and cgroup namespaces
     * @param timeout        the longest one run of {@code nvidia-smi} or one read may take
     * @param hardware       the node's cards, whose PCI bus ids name their dmem regions
     */
    public CgroupMemoryLimits(
            Path nvidiaSmi, Path cgroupfs, Path proc, boolean hostNamespaces, Duration timeout, Hardware hardware) {
        this(nvidiaSmi, cgroupfs, proc, hostNamespaces ? HOST : List.of(), timeout, hardware);
    }

    /** @param enter the command every run and read goes through ({@code nsenter ... --}), empty for none */
    CgroupMemoryLimits(
            Path nvidiaSmi, Path cgroupfs, Path proc, List<String> enter, Duration timeout, Hardware hardware) {
        this.nvidiaSmi = requireNonNull(nvidiaSmi, "nvidiaSmi");
        this.cgroupfs = requireNonNull(cgroupfs, "cgroupfs");
        this.proc = requireNonNull(proc, "proc");
        this.enter = List.copyOf(enter);
        this.timeout = requireNonNull(timeout, "timeout");
        for (Gpu g : hardware.gpus()) {
            regions.put(g.uuid(), region(g.pciBusId()));
        }
    }

    /**
     * Which backend holds device memory under {@code cgroupfs} as the agent reads it: {@value #DMEM} when its
     * {@code dmem.capacity} (on the root cgroup only) lists an {@code nvidia/} region, else empty. Empty means the
     * kernel has no dmem controller (before 6.14, or {@code cgroup_disable=dmem}), or the driver does not charge
     * it (before r615, or {@code RmMemacctMode} set lower); the driver's fallback without it (its own {@code misc}
     * accounting) is not used. Then MPS v3 holds memory with its namespaces' pinned limits only, which MPS enforces
     * in the client's own CUDA library, not in the kernel: a client whose {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}
     * names a card it cannot see (an ordinal beyond its cards, or a uuid not present) drops every pinned limit,
     * its namespace's included, and may take all of the card's memory (NVIDIA's guide measured exactly that); its
     * compute limit still holds. The agent then sees such a container's memory only in what it reports.
     */
    public static Optional<String> backend(Path cgroupfs) {
        try {
            return dmemBackend(Files.readString(cgroupfs.resolve("dmem.capacity")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@link #backend(Path)} as seen where {@code nvidia-smi} runs (through the host's namespaces, if so). */
    public Optional<String> backend() {
        return read(cgroupfs.resolve("dmem.capacity")).flatMap(CgroupMemoryLimits::dmemBackend);
    }

    private static Optional<String> dmemBackend(String capacity) {
        return capacity.lines().anyMatch(l -> l.startsWith("nvidia/")) ? Optional.of(DMEM) : Optional.empty();
    }

    /**
     * The dmem region of a card on the bus {@code pciBusId}: {@code nvidia/<domain:bus:device.function>/vidmem},
     * lower-case with an 8-digit domain ({@code nvidia/00000000:1b:00.0/vidmem}), as NVIDIA's driver names it.
     */
    static String region(String pciBusId) {
        String bdf = pciBusId.strip().toLowerCase(Locale.ROOT);
        int colon = bdf.indexOf(':');
        if (colon >= 0 && colon < 8 && bdf.indexOf(':', colon + 1) > 0) {
            bdf = "0".repeat(8 - colon) + bdf; // NVML's legacy 4-digit domain
        }
        return "nvidia/" + bdf + "/vidmem";
    }

    /** The card's dmem region. @throws MpsException when the card is not one of this node's */
    public String regionOf(String uuid) {
        String region = regions.get(uuid);
        if (region == null) {
            throw new MpsException("card %s is not on this node; its memory cannot be limited".formatted(uuid));
        }
        return region;
    }

    /**
     * The process's own leaf cgroup directory (under {@code cgroupfs}); empty when the process is gone, is not in a
     * cgroup v2 hierarchy, is in the root cgroup (which takes no limit), or is outside the cgroup namespace it is read
     * from (a path with {@code ..}: an agent in a container must read through the host's namespaces).
     */
    public Optional<Path> cgroup(long pid) {
        return read(proc.resolve(Long.toString(pid)).resolve("cgroup"))
                .flatMap(text -> text.lines()
                        .filter(l -> l.startsWith("0::"))
                        .map(l -> l.substring(3).strip())
                        .filter(p -> p.startsWith("/") && !p.equals("/") && !p.contains("/../") && !p.endsWith("/.."))
                        .findFirst()
                        .map(p -> cgroupfs.resolve(p.substring(1))));
    }

    /**
     * Holds the container of process {@code pid} to {@code mib} of card {@code uuid}: sets the limit on the
     * process's own leaf cgroup unless it is already set there.
     *
     * @return the cgroup directory that holds the limit
     * @throws MpsException when the process has no cgroup of its own, or {@code nvidia-smi} refuses; the message
     *                      says what it answered
     */
    public Path hold(long pid, String uuid, long mib) {
        Path dir = cgroup(pid)
                .orElseThrow(() -> new MpsException(
                        ("process %d has no cgroup v2 leaf of its own as %s shows it (gone, in the root cgroup,"
                                        + " or outside the agent's cgroup namespace: run the agent with"
                                        + " --mps-host-namespaces): its memory on %s cannot be limited")
                                .formatted(pid, proc, uuid)));
        hold(dir, uuid, mib);
        return dir;
    }

    /**
     * Holds the cgroup {@code dir} to {@code mib} of card {@code uuid} unless that is its limit already.
     *
     * @return whether it set the limit
     * @throws MpsException when {@code nvidia-smi} refuses or fails
     */
    public boolean hold(Path dir, String uuid, long mib) {
        if (mib < 1) {
            throw new IllegalArgumentException("a memory limit must be 1 or more MiB, was " + mib);
        }
        Optional<Long> current;
        try {
            current = limitMib(dir, uuid);
        } catch (MpsException e) {
            current = Optional.empty(); // nvidia-smi says why (a cgroup without dmem files is "Not Supported")
        }
        if (current.equals(Optional.of(mib))) {
            return false;
        }
        List<String> command = new ArrayList<>(enter);
        command.addAll(List.of(
                nvidiaSmi.toString(),
                "memory-limits",
                "-i",
                uuid,
                "-n",
                dir.toString(),
                "--soft-limit",
                "0",
                "--hard-limit",
                Long.toString(mib)));
        Result r = run(command);
        if (r.exit() != 0) {
            throw new MpsException(("setting %d MiB of %s on cgroup %s failed: nvidia-smi memory-limits (exit %d): %s;"
                            + " the node needs the dmem cgroup controller (kernel 6.14 or later) enabled down to"
                            + " that cgroup (+dmem in each parent's cgroup.subtree_control) and driver r615 or later")
                    .formatted(mib, uuid, dir, r.exit(), r.output().strip()));
        }
        return true;
    }

    /**
     * The hard limit on card {@code uuid} set on the cgroup {@code dir} ({@code dmem.max}), in MiB rounded down;
     * empty when there is none ({@code max}, or no line for the card).
     *
     * @throws MpsException when {@code dmem.max} cannot be read (the cgroup is gone, or has no dmem files)
     */
    public Optional<Long> limitMib(Path dir, String uuid) {
        String region = regionOf(uuid);
        Path file = dir.resolve("dmem.max");
        String text = read(file).orElseThrow(() -> new MpsException("cannot read %s".formatted(file)));
        for (String line : text.lines().toList()) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[0].equals(region)) {
                if (f[1].equals("max")) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(Long.parseLong(f[1]) / MIB);
                } catch (NumberFormatException e) {
                    throw new MpsException("%s: cannot read \"%s\" as a limit".formatted(file, line.strip()));
                }
            }
        }
        return Optional.empty();
    }

    /** A file's text, where {@code nvidia-smi} runs; empty when it is not there or cannot be read. */
    private Optional<String> read(Path file) {
        if (enter.isEmpty()) {
            try {
                return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        List<String> command = new ArrayList<>(enter);
        command.addAll(List.of("cat", file.toString()));
        Result r = run(command);
        return r.exit() == 0 ? Optional.of(r.output()) : Optional.empty();
    }

    private record Result(int exit, String output) {}

    private Result run(List<String> command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
            p.getOutputStream().close();
        } catch (IOException e) {
            throw new MpsException("cannot run %s: %s".formatted(command.getFirst(), e.getMessage()), e);
        }
        CompletableFuture<String> output =
                CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()), Thread::startVirtualThread);
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new MpsException(
                        "%s did not finish within %d ms".formatted(String.join(" ", command), timeout.toMillis()));
            }
            return new Result(p.exitValue(), output.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new MpsException("interrupted while running " + command.getFirst(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new MpsException("reading what %s answered: %s".formatted(command.getFirst(), e), e);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
