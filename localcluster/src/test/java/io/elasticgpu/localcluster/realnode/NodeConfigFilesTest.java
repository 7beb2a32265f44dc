package io.elasticgpu.localcluster.realnode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeConfigFilesTest {

    @TempDir
    Path dir;

    private NodePrograms programs() {
        return programsIn(dir.resolve("bin"));
    }

    /** Programs under {@code bin}, none of them built. */
    static NodePrograms programsIn(Path bin) {
        return new NodePrograms(
                bin.resolve("kubelet"),
                bin.resolve("containerd-v2"),
                bin.resolve("runc"),
                bin.resolve("cni"),
                bin.resolve("pause.tar"),
                "localhost/e2e/pause:1",
                bin.resolve("busybox.tar"),
                "localhost/e2e/busybox:1",
                "v1.36.3");
    }

    @Test
    void containerdReadsCdiSpecsFromTheNodesDirectoryAndRunsTheBuiltRuncAndShim() throws IOException {
        NodeLayout layout = new NodeLayout(dir.resolve("state"), dir.resolve("config"));

        String toml = Files.readString(NodeConfigFiles.containerd(layout, programs()));

        assertThat(toml)
                .contains("cdi_spec_dirs = [\"" + dir.resolve("state/cdi") + "\"]")
                .contains("sandbox = \"localhost/e2e/pause:1\"")
                .contains("BinaryName = \"" + dir.resolve("bin/runc") + "\"")
                .contains("runtime_path = \"" + dir.resolve("bin/containerd-v2/containerd-shim-runc-v2") + "\"")
                .contains("address = \"" + dir.resolve("state/containerd/containerd.sock") + "\"")
                .contains("restrict_oom_score_adj = true");
    }

    @Test
    void kubeletAllowsCgroupV1TaintsTheNodeAndTrustsOnlyTheClusterCa() throws IOException {
        NodeLayout layout = new NodeLayout(dir.resolve("state"), dir.resolve("config"));

        String yaml = Files.readString(NodeConfigFiles.kubelet(
                layout,
                "192.0.2.2",
                21250,
                21248,
                Path.of("/pki/ca.crt"),
                Path.of("/pki/node.crt"),
                Path.of("/pki/node.key")));

        assertThat(yaml)
                .contains(
                        "failCgroupV1: false",
                        "address: 192.0.2.2",
                        "port: 21250",
                        "healthzPort: 21248",
                        "anonymous: {enabled: false}",
                        "x509: {clientCAFile: /pki/ca.crt}",
                        "authorization: {mode: Webhook}",
                        "- {key: elasticgpu.io/real-node, value: \"true\", effect: NoSchedule}",
                        "cgroupRoot: /elasticgpu-real-node",
                        "nodefs.available: \"1%\"");
    }
}
