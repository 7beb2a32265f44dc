package io.elasticgpu.localcluster.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostCleanupTest {

    @Test
    void theMountsUnderTheStateDirectoryComeLongestPathFirstAndNothingBesideIt() {
        List<String> mountinfo = List.of(
                "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
                "60 22 254:0 /run/egpu/kubelet /run/egpu/kubelet rw,relatime shared:1 - ext4 /dev/vda rw",
                "61 60 0:40 / /run/egpu/kubelet/pods/p/volumes/x rw,relatime - tmpfs tmpfs rw",
                "62 22 0:41 / /run/egpu/containerd/state/netns/cni\\040a rw - nsfs nsfs rw",
                "63 22 0:42 / /run/egpu-other rw - tmpfs tmpfs rw");

        // longest path first, so a mount inside another goes before it; \040 is a space
        assertThat(HostCleanup.mountsUnder(Path.of("/run/egpu"), mountinfo))
                .containsExactly(
                        "/run/egpu/containerd/state/netns/cni a",
                        "/run/egpu/kubelet/pods/p/volumes/x",
                        "/run/egpu/kubelet");
    }

    @Test
    void noLinkIsNothingToDelete() {
        assertThat(HostCleanup.deleteLink("egpu-no-such-link")).isNull();
    }
}
