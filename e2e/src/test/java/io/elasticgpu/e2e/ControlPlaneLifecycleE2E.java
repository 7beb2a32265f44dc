package io.elasticgpu.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Starting, restarting parts of, and stopping a control plane leaves nothing behind. */
@ExtendWith(ControlPlaneExtension.class)
class ControlPlaneLifecycleE2E {

    private static final Path E2E = Path.of(System.getProperty("egpu.e2e.dir", "."));

    @Test
    void closingStopsEveryProcessAndFreesEveryPort(@TempDir Path dir) {
        ControlPlane cp = ControlPlane.start(ControlPlane.Options.of(dir, Binaries.locate(E2E)));
        Map<String, Long> pids = cp.pids();
        Map<String, Integer> ports = cp.ports();
        assertThat(pids)
                .containsOnlyKeys("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok");
        assertThat(cp.apiserverReady()).isTrue();

        cp.close();

        assertThat(pids.values())
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false))
                        .as("process %d", pid)
                        .isFalse());
        assertThat(ports.values())
                .allSatisfy(port ->
                        assertThat(Ports.isFree(port)).as("port %d", port).isTrue());
    }

    @Test
    void theSchedulerRestartsWithAnotherConfiguration(TestCluster cluster, @TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("second.yaml"), """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                profiles:
                - schedulerName: default-scheduler
                - schedulerName: second-scheduler
                """);
        cluster.createGpuNodes(
                java.util.List.of(io.elasticgpu.localcluster.nodes.GpuNodeSpec.of("n", 1, "Tesla-T4", 15_360)));
        try {
            cluster.restartScheduler(config);
            Pod pod = new PodBuilder()
                    .withNewMetadata()
                    .withName("by-second")
                    .endMetadata()
                    .withNewSpec()
                    .withSchedulerName("second-scheduler")
                    .addNewContainer()
                    .withName("c")
                    .withImage("x")
                    .endContainer()
                    .endSpec()
                    .build();
            var pods = cluster.client().pods().inNamespace(cluster.namespace());
            pods.resource(pod).create();
            Pod bound = pods.withName("by-second")
                    .waitUntilCondition(p -> p.getSpec().getNodeName() != null, 60, TimeUnit.SECONDS);
            assertThat(bound.getSpec().getNodeName()).isNotEmpty();
        } finally {
            cluster.restartScheduler(null);
        }
    }

    @Test
    void aMissingProgramIsNamedWithHowToBuildIt(@TempDir Path dir) throws IOException {
        Files.writeString(
                dir.resolve("versions.env"), "KUBERNETES_VERSION=v9.9.9\nETCD_VERSION=v9.9.9\nKWOK_VERSION=v9.9.9\n");
        assertThatThrownBy(() -> ControlPlane.start(ControlPlane.Options.of(dir.resolve("work"), Binaries.locate(dir))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("missing upstream programs: kube-apiserver v9.9.9 (")
                .hasMessageEndingWith("Build them with e2e/bin/build-binaries (needs Go and the Go module proxy).");
    }
}
