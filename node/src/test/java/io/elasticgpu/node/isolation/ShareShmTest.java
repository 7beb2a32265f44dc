package io.elasticgpu.node.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A share's {@code /dev/shm} in the per-share layout: a tmpfs of its own with a size limit, so that a data loader
 * filling it fills neither the host's {@code /run} nor another share's; none where the pod brings its own, which is
 * then not hidden. Mounting needs root, as the agent has.
 */
class ShareShmTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";

    @TempDir
    Path dir;

    private Path root;
    private ShareDaemons layout;

    @BeforeEach
    void start() {
        root = dir.resolve("mps");
        MpsControl control =
                new MpsControl(MpsStandIn.install(dir.resolve("bin")).program(), false, "", Duration.ofSeconds(10));
        layout = new ShareDaemons(MpsDaemons.open(control, root, InstantSource.system(), MpsDaemons.Listener.NONE));
    }

    @AfterEach
    void end() {
        MpsStandIn.killAll(root);
    }

    private static MpsShare share(String key, long shmMib) {
        return new MpsShare(key, List.of(CARD), new MpsLimits(List.of(4096L), 30, 1), "ns/pod/main", key, shmMib);
    }

    /** The mount at {@code path} as /proc/self/mountinfo shows it: file system type and super options. */
    private static Optional<String> mount(Path path) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] f = line.split(" ");
            if (f[4].equals(path.toString())) {
                int dash = line.indexOf(" - ");
                return Optional.of(line.substring(dash + 3));
            }
        }
        return Optional.empty();
    }

    @Test
    void aSharesShmIsATmpfsOfItsOwnSizeMountedIntoItsContainersAndTheDaemons() throws IOException {
        MpsAccess access = layout.hold(share("dp-00000000000000a1", 16));
        MpsDirs dirs = layout.pool().daemon("dp-00000000000000a1").orElseThrow().dirs();

        assertThat(access.mounts())
                .containsEntry(dirs.pipe().toString(), "/tmp/nvidia-mps")
                .containsEntry(dirs.shm().toString(), "/dev/shm");
        assertThat(access.env()).containsExactly(java.util.Map.entry("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps"));
        assertThat(mount(dirs.shm()))
                .hasValueSatisfying(m -> assertThat(m).startsWith("tmpfs ").contains("size=16384k"));
        assertThat(MpsStandIn.shmMarker(dirs)).exists(); // the daemon's /dev/shm is the share's tmpfs
    }

    @Test
    void aPodWithItsOwnShmGetsNoneOfTheSharesAndNoTmpfsIsMounted() throws IOException {
        MpsAccess access = layout.hold(share("dp-00000000000000a2", 0));
        MpsDirs dirs = layout.pool().daemon("dp-00000000000000a2").orElseThrow().dirs();

        assertThat(access.mounts()).containsOnlyKeys(dirs.pipe().toString());
        assertThat(mount(dirs.shm())).isEmpty();
    }

    @Test
    void theTmpfsEndsWithTheShare() throws IOException {
        layout.hold(share("dp-00000000000000a3", 8));
        MpsDirs dirs = layout.pool().daemon("dp-00000000000000a3").orElseThrow().dirs();
        assertThat(mount(dirs.shm())).isPresent();

        layout.release("dp-00000000000000a3");

        assertThat(mount(dirs.shm())).isEmpty();
        assertThat(dirs.share()).doesNotExist();
    }
}
