package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.CardTable;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.deviceplugin.api.Mount;
import io.elasticgpu.node.isolation.MpsAccess;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a container is told about its cards: {@code NVIDIA_VISIBLE_DEVICES} (uuids, read by the NVIDIA container
 * runtime) and, in the device plugin's answer, the same cards as the NVIDIA container toolkit's volume-mount device
 * list ({@link #deviceList}), our {@code ELASTICGPU_*} variables, HAMi's {@code CUDA_DEVICE_*} limits, the variables
 * Volcano's and Aliyun's device plugins set for pods that used their names, and, for a share held through MPS, what
 * its layout gives the container to reach its server ({@link MpsAccess}: the pipe directory, a {@code /dev/shm}, and
 * only in the per-card layout the limits themselves, which elsewhere are the server's, where nothing in the container
 * can raise them).
 *
 * @param aliyunUnitMib MiB in one unit of {@code aliyun.com/gpu-mem}
 */
public record ContainerEnvironment(long aliyunUnitMib) {

    /** A container's variables and the host directories mounted into it, in the order they were decided. */
    public record Variables(Map<String, String> env, Map<String, String> mounts) {
        public Variables {
            env = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(env));
            mounts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mounts)); // host path -> container path
        }
    }

    /**
     * The answer to one {@code Allocate} call of {@code resource}. kubelet merges the answers of a container's
     * resources keeping the first value of each variable, in no fixed order; so each answer carries the cards (the
     * same in every answer of a container) and only the variables of its own resource: memory limits with memory,
     * compute with compute.
     */
    public ContainerAllocateResponse response(
            ContainerGrant grant, CardTable cards, AdvertisedResource resource, Optional<MpsAccess> mps) {
        // nvidia.com/gpu is the only resource of its container that kubelet allocates (HAMi's gpumem and gpucores
        // are not advertised), so its answer carries the memory and the compute variables both.
        boolean all =
                resource.kind() == AdvertisedResource.Kind.WHOLE || resource.kind() == AdvertisedResource.Kind.SHARE;
        boolean memory = all || resource.kind() == AdvertisedResource.Kind.MEMORY;
        // A share asked in TFLOPS comes with memory alone (no gpu-core devices): its memory answer tells the compute.
        boolean compute = all
                || resource.kind() == AdvertisedResource.Kind.PERCENT
                || resource.kind() == AdvertisedResource.Kind.MEMORY
                        && grant.shares().getFirst().asksTflops();
        Variables v = variables(grant.shares(), grant.family(), cards, memory, compute, mps);
        ContainerAllocateResponse.Builder b =
                ContainerAllocateResponse.newBuilder().putAllEnvs(v.env());
        v.mounts()
                .forEach((host, container) -> b.addMounts(Mount.newBuilder()
                        .setHostPath(host)
                        .setContainerPath(container)
                        .build()));
        b.addAllMounts(deviceList(
                grant.shares().stream().map(s -> cards.uuid(s.card())).toList()));
        if (!grant.note().isEmpty()) {
            b.putAnnotations("elasticgpu.io/allocation-note", grant.note());
        }
        return b.build();
    }

    /** Where the NVIDIA container toolkit reads a container's devices from volume mounts. */
    public static final String DEVICE_LIST_ROOT = "/var/run/nvidia-container-devices";

    /**
     * The devices {@code ids} (card or MIG UUIDs) as the NVIDIA container toolkit's volume-mount device list: for each,
     * the host's {@code /dev/null} mounted read-only at {@value #DEVICE_LIST_ROOT}{@code /<id>}. A toolkit told to
     * take devices from such mounts ({@code accept-nvidia-visible-devices-as-volume-mounts = true}) and to ignore
     * {@code NVIDIA_VISIBLE_DEVICES} in unprivileged containers ({@code
     * accept-nvidia-visible-devices-envvar-when-unprivileged = false}) gives a container only the cards it was
     * granted, whatever variables it sets: it reads mounts whose source is {@code /dev/null}, which a pod cannot
     * make without a hostPath volume. With the toolkit's defaults the mounts are inert and the variable decides, as
     * before. kubelet drops a second mount at the same path, so every answer of a container may carry them.
     */
    public static List<Mount> deviceList(List<String> ids) {
        return ids.stream()
                .map(id -> Mount.newBuilder()
                        .setHostPath("/dev/null")
                        .setContainerPath(DEVICE_LIST_ROOT + "/" + id)
                        .setReadOnly(true)
                        .build())
                .toList();
    }

    /**
     * The one rule for what a container holding {@code shares} is told, whichever API handed them out: the device
     * plugin (a part per resource, {@code memory}/{@code compute} saying which) and DRA (everything at once).
     *
     * @param mps what the container is given to reach the MPS server that holds its share, when one does
     */
    public Variables variables(
            List<Share> shares,
            Family family,
            CardTable cards,
            boolean memory,
            boolean compute,
            Optional<MpsAccess> mps) {
        Share first = shares.getFirst();
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, String> mounts = new LinkedHashMap<>();
        env.put("NVIDIA_VISIBLE_DEVICES", join(shares, s -> cards.uuid(s.card())));
        env.put("ELASTICGPU_CARD_INDEX", join(shares, s -> Integer.toString(s.card())));
        if (memory && first.memoryMib() > 0) {
            env.put("ELASTICGPU_MEMORY_LIMIT_MIB", Long.toString(first.memoryMib()));
            hamiMemory(env, shares);
            family(env, family, first, cards);
        }
        if (compute) {
            env.put("ELASTICGPU_CORE_PERCENT", Integer.toString(corePercent(first)));
            env.put("CUDA_DEVICE_SM_LIMIT", Integer.toString(corePercent(first)));
            if (first.asksTflops()) {
                env.put("ELASTICGPU_TFLOPS", tflops(first.tflopsGiven()));
                env.put("ELASTICGPU_TFLOPS_ASKED", Integer.toString(first.tflops()));
                env.put("ELASTICGPU_TFLOPS_PRECISION", first.precision());
            }
        }
        if (mps.isPresent() && (memory || compute)) {
            env.putAll(mps.get().env());
            mounts.putAll(mps.get().mounts());
        }
        return new Variables(env, mounts);
    }

    /** TFLOPS as the allocation records them (two decimals at most), without a trailing {@code .0}. */
    private static String tflops(double given) {
        return java.math.BigDecimal.valueOf(given).stripTrailingZeros().toPlainString();
    }

    /*
     * HAMi's limits go to every container with cards, whatever names it asked by, not only to pods that used HAMi's:
     * they state the same share as ELASTICGPU_*, in the format HAMi's in-container library (HAMi-core) reads, so an
     * image that carries that library keeps to its share either way, and one that does not ignores them. Writing
     * them always keeps one rule and no family switch. CUDA_DEVICE_SM_LIMIT is percent; 100 (a memory-only slice,
     * a whole card) means no limit to HAMi-core, as HAMi's own 0 does.
     */
    private static void hamiMemory(Map<String, String> env, List<Share> shares) {
        // Indexes count the container's visible devices; HAMi's unit suffix "m" is MiB.
        for (int i = 0; i < shares.size(); i++) {
            env.put("CUDA_DEVICE_MEMORY_LIMIT_" + i, shares.get(i).memoryMib() + "m");
        }
    }

    private void family(Map<String, String> env, Family family, Share first, CardTable cards) {
        switch (family) {
            case VOLCANO -> {
                long total = cards.memoryMib(first.card());
                env.put("VOLCANO_GPU_ALLOCATED", Long.toString(first.memoryMib()));
                env.put("VOLCANO_GPU_MEMORY_TOTAL", Long.toString(total));
                env.put("VOLCANO_GPU_TOTAL", Long.toString(total)); // the name older Volcano releases used
            }
            case ALIYUN -> {
                String units = Long.toString(first.memoryMib() / aliyunUnitMib);
                env.put("ALIYUN_COM_GPU_MEM_IDX", Integer.toString(first.card()));
                env.put("ALIYUN_COM_GPU_MEM_CONTAINER", units);
                env.put("ALIYUN_COM_GPU_MEM_POD", units);
                env.put("ALIYUN_COM_GPU_MEM_DEV", Long.toString(cards.memoryMib(first.card()) / aliyunUnitMib));
            }
            // HAMi's variables are every container's (hamiMemory); DRA claims are prepared through CDI, not here.
            case ELASTIC_GPU, NVIDIA, HAMI, DRA -> {}
        }
    }

    private static int corePercent(Share s) {
        return s.milli() == 0 ? 100 : s.milli() / 10;
    }

    private static String join(List<Share> shares, java.util.function.Function<Share, String> f) {
        return shares.stream().map(f).collect(Collectors.joining(","));
    }
}
