package io.elasticgpu.localcluster.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostCheckTest {

    @TempDir
    Path dir;

    private NodePrograms programs() {
        return NodeConfigFilesTest.programsIn(dir.resolve("bin"));
    }

    @Test
    void aMachineWithoutTheProgramsIsToldWhichAreMissingAndHowToBuildThem() {
        HostCheck.Verdict verdict = HostCheck.check(programs());

        assertThat(verdict)
                .isInstanceOfSatisfying(
                        HostCheck.Verdict.CannotRun.class,
                        v -> assertThat(v.reason())
                                .startsWith("this machine cannot run a real node: ")
                                .contains("missing kubelet (" + dir.resolve("bin/kubelet") + "), containerd (")
                                .endsWith("image busybox.tar (" + dir.resolve("bin/busybox.tar")
                                        + ") (build them with e2e/bin/build-binaries and e2e/bin/build-real-node)."));
    }
}
