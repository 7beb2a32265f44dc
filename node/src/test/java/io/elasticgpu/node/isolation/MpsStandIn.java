package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * The stand-in {@code nvidia-cuda-mps-control} of {@code src/test/resources/mps/} (a shell script: same command line,
 * same pid file, same commands as NVIDIA's legacy protocol; a driver older than MPS v3), installed as an executable of
 * that name, and what tests read from and
 * write into its daemons' log directories: the commands each daemon received, the environment it started with, and
 * the MPS servers and clients it reports.
 */
public final class MpsStandIn {

    private final Path program;

    private MpsStandIn(Path program) {
        this.program = program;
    }

    /** Installs the stand-in in {@code dir} as {@code nvidia-cuda-mps-control}. */
    public static MpsStandIn install(Path dir) {
        try (InputStream in = MpsStandIn.class.getResourceAsStream("/mps/nvidia-cuda-mps-control")) {
            Path program = dir.resolve("nvidia-cuda-mps-control");
            Files.createDirectories(dir);
            Files.copy(in, program, StandardCopyOption.REPLACE_EXISTING);
            program.toFile().setExecutable(true);
            return new MpsStandIn(program);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path program() {
        return program;
    }

    /** The commands the share's daemon received, one a line, oldest first. */
    public static List<String> commands(MpsDirs dirs) {
        return lines(dirs.log().resolve("commands.log"));
    }

    /** The {@code CUDA_MPS_*} and {@code CUDA_VISIBLE_DEVICES} variables the share's daemon started with. */
    public static List<String> environment(MpsDirs dirs) {
        return lines(dirs.log().resolve("daemon.env"));
    }

    /** Where the daemon's {@code /dev/shm} marker file is, as the host sees it. */
    public static Path shmMarker(MpsDirs dirs) {
        List<String> marker = lines(dirs.log().resolve("shm-marker"));
        return dirs.shm().resolve(Path.of(marker.getFirst()).getFileName());
    }

    /** Makes the share's daemon report an MPS server with these clients. */
    public static void serve(MpsDirs dirs, long server, long... clients) {
        Path state = dirs.log().resolve("standin");
        try {
            Files.createDirectories(state);
            Files.writeString(
                    state.resolve("servers"), server + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            StringBuilder b = new StringBuilder();
            for (long c : clients) {
                b.append(c).append('\n');
            }
            Files.writeString(state.resolve("clients." + server), b.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The clients the share's daemon reports for {@code server} now. */
    public static List<String> clients(MpsDirs dirs, long server) {
        return lines(dirs.log().resolve("standin").resolve("clients." + server));
    }

    /**
     * Kills every stand-in daemon under {@code root} and unmounts the shares' {@code /dev/shm} tmpfs (tests end theirs;
     * daemons outlive the agent by design).
     */
    public static void killAll(Path root) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            dirs.forEach(d -> {
                MpsDirs share = new MpsDirs(d);
                long pid = MpsControl.pid(share.pipe());
                if (pid > 0) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                unmount(share.shm());
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void unmount(Path shm) {
        try {
            new ProcessBuilder("sh", "-c", "if mountpoint -q \"$0\"; then umount -l \"$0\"; fi", shm.toString())
                    .inheritIO()
                    .start()
                    .waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file)
                    ? Files.readAllLines(file).stream()
                            .filter(l -> !l.isBlank())
                            .toList()
                    : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
