package io.elasticgpu.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.isolation.MpsAccess;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContainerEnvironmentTest {

    private static final ContainerKey KEY = new ContainerKey("ns", "pod", "main");
    private static final AdvertisedResource MEMORY =
            new AdvertisedResource("elasticgpu.io/gpu-memory", AdvertisedResource.Kind.MEMORY, 1);
    private static final AdvertisedResource CORE =
            new AdvertisedResource("elasticgpu.io/gpu-core", AdvertisedResource.Kind.PERCENT, 100);
    private static final AdvertisedResource WHOLE =
            new AdvertisedResource("elasticgpu.io/gpu", AdvertisedResource.Kind.WHOLE, 0);
    private static final AdvertisedResource NVIDIA =
            new AdvertisedResource("nvidia.com/gpu", AdvertisedResource.Kind.SHARE, 100);
    private final DeviceCatalog cards = new DeviceCatalog(
            new Hardware(
                    "570.1",
                    List.of(
                            new Gpu(0, "GPU-a", "T4", 15_360, "00000000:01:00.0", 0, 0, false),
                            new Gpu(1, "GPU-b", "T4", 15_360, "00000000:02:00.0", 1, 0, false)),
                    Topology.uniform(2, io.elasticgpu.core.model.Link.UNKNOWN)),
            List.of());

    @Test
    void eachResourceTellsTheCardsAndOnlyItsOwnShare() {
        ContainerGrant g = new ContainerGrant(KEY, List.of(new Share(1, "GPU-b", 300, 4096)), Family.ELASTIC_GPU, "");
        ContainerEnvironment env = new ContainerEnvironment(1024);

        ContainerAllocateResponse memory = env.response(g, cards, MEMORY, Optional.empty());
        ContainerAllocateResponse core = env.response(g, cards, CORE, Optional.empty());

        // kubelet keeps the first value of a variable among a container's answers, in no fixed order
        assertThat(memory.getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-b")
                .containsEntry("ELASTICGPU_CARD_INDEX", "1")
                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096")
                .doesNotContainKey("ELASTICGPU_CORE_PERCENT");
        assertThat(core.getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-b")
                .containsEntry("ELASTICGPU_CARD_INDEX", "1")
                .containsEntry("ELASTICGPU_CORE_PERCENT", "30")
                .doesNotContainKey("ELASTICGPU_MEMORY_LIMIT_MIB");
        // and both name the card as the NVIDIA toolkit's volume-mount device list (kubelet keeps one mount per path)
        for (ContainerAllocateResponse r : List.of(memory, core)) {
            assertThat(r.getMountsList())
                    .extracting(m -> m.getHostPath() + " -> " + m.getContainerPath() + (m.getReadOnly() ? " ro" : ""))
                    .containsExactly("/dev/null -> /var/run/nvidia-container-devices/GPU-b ro");
        }
    }

    @Test
    void aShareAskedInTflopsIsToldItsComputeAndTheTflopsGivenWithItsMemory() {
        // elasticgpu.io/gpu-tflops: 5 of fp32 with gpu-memory: 4096 on a T4 (8.1): 5 x 100 / 8.1 = 61.73, up to 62 %,
        // which gives 8.1 x 0.62 = 5.02 TFLOPS; kubelet calls for gpu-memory alone, so that answer tells it all
        ContainerGrant g = new ContainerGrant(
                KEY, List.of(new Share(1, "GPU-b", 620, 4096, 5, "fp32", 5.02)), Family.ELASTIC_GPU, "");

        assertThat(new ContainerEnvironment(1024)
                        .response(g, cards, MEMORY, Optional.empty())
                        .getEnvsMap())
                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096")
                .containsEntry("ELASTICGPU_CORE_PERCENT", "62")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "62")
                .containsEntry("ELASTICGPU_TFLOPS", "5.02")
                .containsEntry("ELASTICGPU_TFLOPS_ASKED", "5")
                .containsEntry("ELASTICGPU_TFLOPS_PRECISION", "fp32");
    }

    @Test
    void volcanoAndAliyunPodsGetTheirVariables() {
        ContainerGrant volcano = new ContainerGrant(KEY, List.of(new Share(0, "GPU-a", 0, 1024)), Family.VOLCANO, "");
        ContainerGrant aliyun = new ContainerGrant(KEY, List.of(new Share(1, "GPU-b", 0, 8192)), Family.ALIYUN, "");
        ContainerEnvironment env = new ContainerEnvironment(1024);

        assertThat(env.response(volcano, cards, MEMORY, Optional.empty()).getEnvsMap())
                .containsEntry("VOLCANO_GPU_ALLOCATED", "1024")
                .containsEntry("VOLCANO_GPU_MEMORY_TOTAL", "15360")
                .containsEntry("VOLCANO_GPU_TOTAL", "15360");
        assertThat(env.response(aliyun, cards, MEMORY, Optional.empty()).getEnvsMap())
                .containsEntry("ALIYUN_COM_GPU_MEM_IDX", "1")
                .containsEntry("ALIYUN_COM_GPU_MEM_CONTAINER", "8")
                .containsEntry("ALIYUN_COM_GPU_MEM_DEV", "15");
    }

    @Test
    void aShareHeldByMpsGetsItsDaemonsPipeAndSharedMemoryButNoLimitInItsEnvironment() {
        ContainerGrant g = new ContainerGrant(
                KEY,
                List.of(new Share(0, "GPU-a", 250, 2048), new Share(1, "GPU-b", 250, 2048)),
                Family.ELASTIC_GPU,
                "");
        java.util.Map<String, String> mounts = new java.util.LinkedHashMap<>();
        mounts.put("/run/elastic-gpu/mps/dp-0123456789abcdef/pipe", "/tmp/nvidia-mps");
        mounts.put("/run/elastic-gpu/mps/dp-0123456789abcdef/shm", "/dev/shm");
        Optional<MpsAccess> daemon =
                Optional.of(new MpsAccess(mounts, java.util.Map.of("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")));
        ContainerEnvironment env = new ContainerEnvironment(1024);

        ContainerAllocateResponse memory = env.response(g, cards, MEMORY, daemon);
        ContainerAllocateResponse core = env.response(g, cards, CORE, daemon);

        for (ContainerAllocateResponse r : List.of(memory, core)) {
            assertThat(r.getEnvsMap())
                    .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-a,GPU-b")
                    .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")
                    // A limit in the container's environment is one the container can unset: MPS's are the daemon's.
                    .doesNotContainKeys("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
            assertThat(r.getMountsList())
                    .extracting(m -> m.getHostPath() + " -> " + m.getContainerPath())
                    .containsExactly(
                            "/run/elastic-gpu/mps/dp-0123456789abcdef/pipe -> /tmp/nvidia-mps",
                            "/run/elastic-gpu/mps/dp-0123456789abcdef/shm -> /dev/shm",
                            "/dev/null -> /var/run/nvidia-container-devices/GPU-a",
                            "/dev/null -> /var/run/nvidia-container-devices/GPU-b");
        }
    }

    @Test
    void withoutADaemonNothingMpsIsMounted() {
        ContainerGrant g = new ContainerGrant(KEY, List.of(new Share(0, "GPU-a", 1000, 15_360)), Family.NVIDIA, "");

        ContainerAllocateResponse r = new ContainerEnvironment(1024).response(g, cards, WHOLE, Optional.empty());

        assertThat(r.getEnvsMap())
                .doesNotContainKey("CUDA_MPS_PIPE_DIRECTORY")
                .containsEntry("ELASTICGPU_CORE_PERCENT", "100");
        assertThat(r.getMountsList())
                .extracting(m -> m.getHostPath() + " -> " + m.getContainerPath())
                .containsExactly("/dev/null -> /var/run/nvidia-container-devices/GPU-a");
    }

    @Test
    void aHamiShareOnTwoCardsGetsHamisLimitsInTheOnlyAnswer() {
        // nvidia.com/gpu: 2, nvidia.com/gpumem: 3000, nvidia.com/gpucores: 30 → 3000 MiB and 300 milli on each card
        ContainerGrant g = new ContainerGrant(
                KEY, List.of(new Share(0, "GPU-a", 300, 3000), new Share(1, "GPU-b", 300, 3000)), Family.HAMI, "");

        assertThat(new ContainerEnvironment(1024)
                        .response(g, cards, NVIDIA, Optional.empty())
                        .getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-a,GPU-b")
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "3000m")
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_1", "3000m")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "30")
                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "3000")
                .containsEntry("ELASTICGPU_CORE_PERCENT", "30");
    }

    @Test
    void everySliceGetsHamisLimitsWithItsOwnResource() {
        ContainerGrant g = new ContainerGrant(KEY, List.of(new Share(1, "GPU-b", 250, 2048)), Family.ELASTIC_GPU, "");
        ContainerEnvironment env = new ContainerEnvironment(1024);

        // the memory limit with the memory answer, the compute limit with the compute answer (kubelet keeps the first)
        assertThat(env.response(g, cards, MEMORY, Optional.empty()).getEnvsMap())
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "2048m")
                .doesNotContainKey("CUDA_DEVICE_SM_LIMIT");
        assertThat(env.response(g, cards, CORE, Optional.empty()).getEnvsMap())
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "25")
                .doesNotContainKey("CUDA_DEVICE_MEMORY_LIMIT_0");
    }

    @Test
    void aWholeCardIsLimitedToAllOfIt() {
        ContainerGrant g = new ContainerGrant(KEY, List.of(new Share(0, "GPU-a", 1000, 15_360)), Family.NVIDIA, "");

        assertThat(new ContainerEnvironment(1024)
                        .response(g, cards, NVIDIA, Optional.empty())
                        .getEnvsMap())
                .containsEntry("CUDA_DEVICE_MEMORY_LIMIT_0", "15360m")
                .containsEntry("CUDA_DEVICE_SM_LIMIT", "100")
                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "15360");
    }
}
