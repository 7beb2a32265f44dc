package io.elasticgpu.node.usage;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.Unattributed;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.NvmlStub;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.isolation.MpsWatchdog.ShareProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What containers use, from NVML's process lists and samples (the C stub of libnvidia-ml.so.1) and each process's
 * cgroup (a /proc of files written by the test, in kubelet's cgroup layout).
 */
class UsageMonitorTest {

    private static final String CARD = "GPU-11111111-2222-3333-4444-555555555555";
    private static final String POD_A = "0b3f6a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    private static final String POD_B = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    private static final String C1 = "a".repeat(64);
    private static final String MAIN = "b".repeat(64);
    private static final MpsShare SHARE = new MpsShare(
            "dp-00000000000000b2",
            List.of(CARD),
            new MpsLimits(List.of(20480L), 60, 1),
            "team-b/infer/main",
            "elasticgpu.io/gpu-memory " + CARD + "::m0",
            0);

    @TempDir
    Path proc;

    private final List<PodView> pods = List.of(
            new PodView(POD_A, "team-a", "train", Map.of(C1, "c1"), Map.of("c1", Map.of(0, 4096L))),
            new PodView(POD_B, "team-b", "infer", Map.of(MAIN, "main"), Map.of("main", Map.of(0, 20480L))));

    @BeforeEach
    void cgroups() throws IOException {
        cgroup(
                100,
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + POD_A.replace('-', '_')
                        + ".slice/cri-containerd-" + C1 + ".scope");
        cgroup(
                101,
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + POD_A.replace('-', '_')
                        + ".slice/cri-containerd-" + C1 + ".scope");
        cgroup(200, "0::/system.slice/some-daemon.service");
        cgroup(300, "0::/elasticgpu-mps");
        cgroup(301, "0::/kubepods/burstable/pod" + POD_B + "/" + MAIN);
    }

    private void cgroup(long pid, String line) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(Long.toString(pid)).resolve("cgroup"), line + "\n");
    }

    private static final String NODE = "card " + CARD + " 00000000:01:00.0 0 0 0 81559 NVIDIA H100 80GB HBM3\n"
            + "process 0 100 5120 compute\nprocess 0 101 1000 compute\nprocess 0 200 300 compute\n"
            + "process 0 300 66 mps\nprocess 0 301 4000 both\n"
            + "util 0 100 30 10 1000\nutil 0 300 91 40 1000\n";

    @Test
    void eachProcessIsCountedForItsPodsContainerAndAnMpsServersComputeForItsSharesContainer() {
        NvmlStub.configure(NODE);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            UsageMonitor monitor = new UsageMonitor(
                    nvml,
                    nvml.discover(),
                    proc,
                    () -> pods,
                    () -> Map.of(300L, new ShareProcess(SHARE, true), 301L, new ShareProcess(SHARE, false)),
                    InstantSource.fixed(Instant.parse("2026-11-27T10:00:00.700Z")));

            NodeUsage u = monitor.sample().usage();

            assertThat(u.measured()).isEqualTo("2026-11-27T10:00:00Z");
            assertThat(u.containers())
                    .containsExactly(
                            // 5,120 + 1,000 MiB, the one sample (30 %), two processes
                            new ContainerUsage("team-a", "train", "c1", 0, 6120, 30, 2),
                            // its client's 4,000 MiB; NVML samples only the share's server (91 %), whose 66 MiB is not
                            // the pod's
                            new ContainerUsage("team-b", "infer", "main", 0, 4000, 91, 1));
            // the host's daemon (300 MiB) and the MPS server (66 MiB)
            assertThat(u.unattributed()).containsExactly(new Unattributed(0, 366, 2));
        }
    }

    @Test
    void aContainerOverItsGrantIsReportedOnceAfterTwoSamplesInARow() {
        NvmlStub.configure(NODE);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            UsageMonitor monitor =
                    new UsageMonitor(nvml, nvml.discover(), proc, () -> pods, Map::of, InstantSource.system());

            assertThat(monitor.sample().exceeded()).isEmpty(); // one sample may catch memory being freed
            assertThat(monitor.sample().exceeded())
                    .containsExactly(new UsageMonitor.Exceeded("team-a", "train", "c1", 0, 6120, 4096));
            assertThat(monitor.sample().exceeded()).isEmpty(); // still over: said once

            NvmlStub.update("process 0 100 3000 compute\nprocess 0 301 4000 both\n"); // back within 4,096 MiB
            assertThat(monitor.sample().exceeded()).isEmpty();
            NvmlStub.update(NODE.substring(NODE.indexOf("process")));
            monitor.sample();
            assertThat(monitor.sample().exceeded()).hasSize(1); // a new episode is reported again
        }
    }

    @Test
    void aProcessOfAPodTheAgentDoesNotKnowIsUnattributed() {
        NvmlStub.configure(NODE);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            UsageMonitor monitor =
                    new UsageMonitor(nvml, nvml.discover(), proc, List::of, Map::of, InstantSource.system());

            NodeUsage u = monitor.sample().usage();

            assertThat(u.containers()).isEmpty();
            assertThat(u.unattributed()).containsExactly(new Unattributed(0, 5120 + 1000 + 300 + 66 + 4000, 5));
        }
    }

    @Test
    void anMpsClientOutsideAnyPodIsCountedForItsSharesHolder() throws IOException {
        cgroup(301, "0::/user.slice/session-1.scope"); // the GPU check runs "pods" as plain processes on the host
        NvmlStub.configure(NODE);
        try (NvmlBackend nvml = NvmlBackend.open(NvmlStub.library())) {
            UsageMonitor monitor = new UsageMonitor(
                    nvml,
                    nvml.discover(),
                    proc,
                    () -> pods,
                    () -> Map.of(300L, new ShareProcess(SHARE, true), 301L, new ShareProcess(SHARE, false)),
                    InstantSource.system());

            assertThat(monitor.sample().usage().containers())
                    .contains(new ContainerUsage("team-b", "infer", "main", 0, 4000, 91, 1));
        }
    }
}
