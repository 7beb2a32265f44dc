package io.elasticgpu.e2e.realnode;

import static io.elasticgpu.e2e.realnode.GpuWorkloads.expectedEnvironment;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.gpuVariables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.elasticgpu.node.isolation.MpsAccess;
import io.elasticgpu.node.isolation.MpsDirs;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.isolation.MpsStandIn;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --isolation mps} on the real node: the agent runs one MPS control daemon per share (the stand-in
 * {@code nvidia-cuda-mps-control} of the node module's tests: NVIDIA's legacy command line, pid file and commands, a
 * driver without MPS v3, so {@code auto} picks the per-share layout), and a slice's container gets that daemon's pipe
 * directory at {@code /tmp/nvidia-mps} and, unless its pod brings its own, the share's size-limited tmpfs at
 * {@code /dev/shm}, mounted by containerd from the device plugin's answer, with no limit in its environment: the
 * limits are the daemon's.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeMpsE2E {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static GpuWorkloads gpus;
    private static Path mpsRoot;
    private static MpsStandIn standIn;

    @BeforeAll
    static void startElasticGpu(ControlPlane controlPlane, RealNode node) {
        standIn = MpsStandIn.install(controlPlane.workDir().resolve("mps-stand-in"));
        mpsRoot = node.layout().state().resolve("mps");
        gpus = GpuWorkloads.start(
                controlPlane,
                node,
                RealNodeAgent.Api.DEVICE_PLUGIN,
                List.of(
                        "--isolation",
                        "mps",
                        "--mps-control",
                        standIn.program().toString(),
                        "--mps-root",
                        mpsRoot.toString()));
        try (KubernetesClient client = controlPlane.newClient()) {
            GpuWorkloads.awaitDevicePlugin(client, node);
        }
    }

    @AfterAll
    static void stopElasticGpu() {
        try {
            if (gpus != null) {
                gpus.close();
            }
        } finally {
            // the daemons outlive the agent by design; the test ends the stand-in's
            MpsStandIn.killAll(mpsRoot);
        }
    }

    @Test
    void aSlicesContainerGetsItsOwnDaemonsPipeAndSharedMemoryAndNoLimitInItsEnvironment(
            TestCluster cluster, RealNode node) {
        RealNodePods pods = new RealNodePods(cluster.client(), cluster.namespace(), node);
        // 256 blocks × 16 MiB = 4096 MiB and 30 %, run by 2 processes: 2048 MiB and 15 % each, a memory limit of 1024
        // MiB after the context reserve (1024 MiB by default)
        pods.create(pods.reporting("mps", Map.of(ResourceNames.GPU_MEMORY, "256", ResourceNames.GPU_CORE, "30"))
                .editMetadata()
                .addToAnnotations(MpsLimits.PROCESSES_ANNOTATION, "2")
                .endMetadata()
                .build());
        pods.create(pods.reporting("whole", Map.of(ResourceNames.GPU, "1")).build());
        // A slice whose pod brings its own /dev/shm (a memory-backed emptyDir): the share's is not mounted over it.
        pods.create(pods.reporting("ownshm", Map.of(ResourceNames.GPU_MEMORY, "128", ResourceNames.GPU_CORE, "10"))
                .editSpec()
                .addNewVolume()
                .withName("shm")
                .withNewEmptyDir()
                .withMedium("Memory")
                .endEmptyDir()
                .endVolume()
                .editFirstContainer()
                .addNewVolumeMount()
                .withName("shm")
                .withMountPath("/dev/shm")
                .endVolumeMount()
                .endContainer()
                .endSpec()
                .build());

        ContainerReport report = pods.report("mps", "main");
        List<Share> shares = GpuWorkloads.allocated(cluster.client(), cluster.namespace(), "mps")
                .containers()
                .get("main");
        Map<String, String> expected = new LinkedHashMap<>(expectedEnvironment(shares, true, true));
        expected.put("CUDA_MPS_PIPE_DIRECTORY", MpsAccess.CONTAINER_PIPE);
        assertThat(gpuVariables(report))
                .as("no MPS limit in the container's environment")
                .isEqualTo(new java.util.TreeMap<>(expected));

        // The agent's record of the share: its cards and the limits it set on the daemon's side.
        String holder = cluster.namespace() + "/mps/main";
        MpsDirs dirs = await().atMost(RealNodePods.WAIT)
                .until(() -> shareOf(holder), Optional::isPresent)
                .orElseThrow();
        MpsShare share = read(dirs);
        assertThat(share.cards()).containsExactly(shares.getFirst().uuid());
        assertThat(share.limits()).isEqualTo(new MpsLimits(List.of(1024L), 15, 2));
        assertThat(MpsStandIn.environment(dirs))
                .contains("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=15", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1024M");

        // What containerd mounted: that share's directories, seen from inside with the daemon's files in them.
        assertThat(report.mountAt(MpsAccess.CONTAINER_PIPE))
                .hasValueSatisfying(m -> assertThat(m.root()).endsWith("/" + share.key() + "/pipe"));
        // The share's /dev/shm: a tmpfs of its own of --mps-shm-mib (64 by default), not a host directory in /run.
        assertThat(report.mountAt(MpsAccess.CONTAINER_SHM)).hasValueSatisfying(m -> {
            assertThat(m.fsType()).isEqualTo("tmpfs");
            assertThat(m.source()).isEqualTo("elasticgpu-mps-shm");
        });
        assertThat(hostMount(dirs.shm())).contains("tmpfs elasticgpu-mps-shm").contains("size=65536k");
        assertThat(report.files().get(MpsAccess.CONTAINER_PIPE)).contains("control", "nvidia-cuda-mps-control.pid");
        assertThat(report.files().get(MpsAccess.CONTAINER_SHM))
                .contains(MpsStandIn.shmMarker(dirs).getFileName().toString());

        // A pod that brings its own /dev/shm keeps it: the pipe is mounted, the share's /dev/shm is not.
        ContainerReport own = pods.report("ownshm", "main");
        assertThat(own.mountAt(MpsAccess.CONTAINER_PIPE)).isPresent();
        assertThat(own.mountAt(MpsAccess.CONTAINER_SHM))
                .hasValueSatisfying(m -> assertThat(m.source()).isNotEqualTo("elasticgpu-mps-shm"));

        // A whole card never goes through MPS: no pipe, the pod's own /dev/shm.
        ContainerReport whole = pods.report("whole", "main");
        assertThat(whole.env()).doesNotContainKey("CUDA_MPS_PIPE_DIRECTORY");
        assertThat(whole.mountAt(MpsAccess.CONTAINER_PIPE)).isEmpty();
        assertThat(whole.mountAt(MpsAccess.CONTAINER_SHM))
                .hasValueSatisfying(m -> assertThat(m.source()).isEqualTo("shm"));
    }

    /** The host's mount at {@code path}: type, source and super options, from /proc/self/mountinfo. */
    private static String hostMount(Path path) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                if (line.split(" ")[4].equals(path.toString())) {
                    return line.substring(line.indexOf(" - ") + 3);
                }
            }
            return "(not a mount point)";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The share directory under the MPS root whose record names {@code holder}. */
    private static Optional<MpsDirs> shareOf(String holder) {
        if (!Files.isDirectory(mpsRoot)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(mpsRoot)) {
            return dirs.map(MpsDirs::new)
                    .filter(d -> Files.isRegularFile(d.record()))
                    .filter(d -> read(d).holder().equals(holder))
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static MpsShare read(MpsDirs dirs) {
        try {
            return JSON.readValue(dirs.record().toFile(), MpsShare.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
