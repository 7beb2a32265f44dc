package io.elasticgpu.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProcessOwnerTest {

    private static final String UID = "0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    private static final String ID = "4f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f";

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                // cgroup v2, systemd driver, containerd
                "v2 systemd "
                        + "containerd|0::/kubepods.slice/kubepods-burstable.slice/"
                        + "kubepods-burstable-pod0b3f6a8e_1c2d_4e5f_8a9b_0c1d2e3f4a5b.slice/"
                        + "cri-containerd-"
                        + "4f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f.sc"
                        + "ope",
                // cgroup v2, systemd driver, CRI-O, a guaranteed pod (no QoS level in the path)
                "v2 systemd "
                        + "cri-o|0::/kubepods.slice/kubepods-pod0b3f6a8e_1c2d_4e5f_8a9b_0c1d2e3f4a5b.slice/"
                        + "crio-4f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f.scope",
                // cgroup v1, cgroupfs driver: the memory line names the pod
                "v1 "
                        + "cgroupfs|12:pids:/kubepods/besteffort/pod0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b/"
                        + "4f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f",
            })
    void aProcessInAPodsCgroupBelongsToThatPodAndContainer(String layout, String line) {
        assertThat(ProcessOwner.parse("1:name=systemd:/\n" + line + "\n")).contains(new ProcessOwner(UID, ID));
    }

    @Test
    void aPodLevelCgroupNamesThePodOnly() {
        assertThat(ProcessOwner.parse("0::/kubepods/burstable/pod" + UID + "\n"))
                .contains(new ProcessOwner(UID, ""));
    }

    @Test
    void aHostProcessBelongsToNoPod() {
        assertThat(ProcessOwner.parse("0::/system.slice/nvidia-persistenced.service\n"))
                .isEmpty();
        assertThat(ProcessOwner.parse("0::/elasticgpu-mps\n")).isEmpty();
        assertThat(ProcessOwner.parse("")).isEmpty();
    }
}
