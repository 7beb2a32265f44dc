package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.api.v1alpha1.Allocation.Share;
import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.node.allocation.CardTable;
import io.elasticgpu.node.allocation.Grant;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.deviceplugin.api.Mount;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What a container is told about its cards: {@code NVIDIA_VISIBLE_DEVICES} (uuids, read by the NVIDIA container
 * runtime), our {@code ELASTICGPU_*} variables, HAMi's {@code CUDA_DEVICE_*} limits, the variables Volcano's and
 * Aliyun's device plugins set for pods that used their names, and in MPS mode the limits the MPS server enforces per
 * client.
 *
 * @param mps         whether containers share cards through an MPS server (memory and compute enforced by the driver)
 * @param mpsPipeDir  the host directory of the MPS server's pipes, mounted into every container
 * @param aliyunUnitMib MiB in one unit of {@code aliyun.com/gpu-mem}
 */
public record ContainerEnvironment(boolean mps, String mpsPipeDir, long aliyunUnitMib) {

    public static final String MPS_CONTAINER_DIR = "/tmp/nvidia-mps";

    /**
     * The answer to one {@code Allocate} call of {@code resource}. kubelet merges the answers of a container's
     * resources keeping the first value of each variable, in no fixed order; so each answer carries the cards (the
     * same in every answer of a container) and only the variables of its own resource: memory limits with memory,
     * compute with compute.
     */
    public ContainerAllocateResponse response(Grant grant, CardTable cards, AdvertisedResource resource) {
        List<Share> shares = grant.shares();
        Share first = shares.getFirst();
        ContainerAllocateResponse.Builder b = ContainerAllocateResponse.newBuilder()
                .putEnvs("NVIDIA_VISIBLE_DEVICES", join(shares, s -> cards.uuid(s.card())))
                .putEnvs("ELASTICGPU_CARD_INDEX", join(shares, s -> Integer.toString(s.card())));
        if (!grant.note().isEmpty()) {
            b.putAnnotations("elasticgpu.io/allocation-note", grant.note());
        }
        // nvidia.com/gpu is the only resource of its container that kubelet allocates (HAMi's gpumem and gpucores
        // are not advertised), so its answer carries the memory and the compute variables both.
        boolean all = resource.kind() == AdvertisedResource.Kind.WHOLE || resource.kind() == AdvertisedResource.Kind.SHARE;
        boolean memory = all || resource.kind() == AdvertisedResource.Kind.MEMORY;
        boolean compute = all || resource.kind() == AdvertisedResource.Kind.PERCENT;
        if (memory && first.memoryMib() > 0) {
            b.putEnvs("ELASTICGPU_MEMORY_LIMIT_MIB", Long.toString(first.memoryMib()));
            hamiMemory(b, shares);
            family(b, grant.family(), first, cards);
        }
        if (compute) {
            b.putEnvs("ELASTICGPU_CORE_PERCENT", Integer.toString(corePercent(first)));
            b.putEnvs("CUDA_DEVICE_SM_LIMIT", Integer.toString(corePercent(first)));
        }
        if (mps && first.milli() < 1000 && (memory || compute)) {
            b.putEnvs("CUDA_MPS_PIPE_DIRECTORY", MPS_CONTAINER_DIR)
                    .addMounts(Mount.newBuilder().setHostPath(mpsPipeDir).setContainerPath(MPS_CONTAINER_DIR).build());
            if (compute && first.milli() > 0) {
                b.putEnvs("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(corePercent(first)));
            }
            if (memory && first.memoryMib() > 0) {
                // Indexes in this variable count the container's visible devices, so ours start at 0.
                String limits = java.util.stream.IntStream.range(0, shares.size())
                        .mapToObj(i -> i + "=" + shares.get(i).memoryMib() + "M").collect(Collectors.joining(","));
                b.putEnvs("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", limits);
            }
        }
        return b.build();
    }

    /*
     * HAMi's limits go to every container with cards, whatever names it asked by, not only to pods that used HAMi's:
     * they state the same share as ELASTICGPU_*, in the format HAMi's in-container library (HAMi-core) reads, so an
     * image that carries that library keeps to its share either way, and one that does not ignores them. Writing
     * them always keeps one rule and no family switch. CUDA_DEVICE_SM_LIMIT is percent; 100 (a memory-only slice,
     * a whole card) means no limit to HAMi-core, as HAMi's own 0 does.
     */
    private static void hamiMemory(ContainerAllocateResponse.Builder b, List<Share> shares) {
        // Indexes count the container's visible devices; HAMi's unit suffix "m" is MiB.
        for (int i = 0; i < shares.size(); i++) {
            b.putEnvs("CUDA_DEVICE_MEMORY_LIMIT_" + i, shares.get(i).memoryMib() + "m");
        }
    }

    private void family(ContainerAllocateResponse.Builder b, Family family, Share first, CardTable cards) {
        switch (family) {
            case VOLCANO -> {
                long total = cards.memoryMib(first.card());
                b.putEnvs("VOLCANO_GPU_ALLOCATED", Long.toString(first.memoryMib()))
                        .putEnvs("VOLCANO_GPU_MEMORY_TOTAL", Long.toString(total))
                        .putEnvs("VOLCANO_GPU_TOTAL", Long.toString(total)); // the name older Volcano releases used
            }
            case ALIYUN -> {
                String units = Long.toString(first.memoryMib() / aliyunUnitMib);
                b.putEnvs("ALIYUN_COM_GPU_MEM_IDX", Integer.toString(first.card()))
                        .putEnvs("ALIYUN_COM_GPU_MEM_CONTAINER", units)
                        .putEnvs("ALIYUN_COM_GPU_MEM_POD", units)
                        .putEnvs("ALIYUN_COM_GPU_MEM_DEV", Long.toString(cards.memoryMib(first.card()) / aliyunUnitMib));
            }
            case ELASTIC_GPU, NVIDIA, HAMI -> { // HAMi's variables are every container's (hamiMemory)
            }
        }
    }

    private static int corePercent(Share s) {
        return s.milli() == 0 ? 100 : s.milli() / 10;
    }

    private static String join(List<Share> shares, java.util.function.Function<Share, String> f) {
        return shares.stream().map(f).collect(Collectors.joining(","));
    }
}
