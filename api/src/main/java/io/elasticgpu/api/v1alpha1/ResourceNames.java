package io.elasticgpu.api.v1alpha1;

import java.util.List;

/** The extended resources pods ask for and nodes advertise (DESIGN.md, "Resource names"). */
public final class ResourceNames {

    /** Whole cards, exclusive. */
    public static final String GPU = "elasticgpu.io/gpu";
    /** Memory slice of one card, in blocks of the node agent's block size (1 MiB unless configured). */
    public static final String GPU_MEMORY = "elasticgpu.io/gpu-memory";
    /** Compute slice of one card, in percent: 100 is a whole card. */
    public static final String GPU_CORE = "elasticgpu.io/gpu-core";
    /** With a memory or compute slice: that slice on each of this many distinct cards. */
    public static final String GPU_COUNT = "elasticgpu.io/gpu-count";

    /**
     * Compute of one card in TFLOPS of the precision {@link Annotations#TFLOPS_PRECISION} names, instead of
     * {@link #GPU_CORE}: the extender turns it into a share of each candidate card's model. It goes with
     * {@link #GPU_MEMORY} (kubelet calls the node agent for the memory) and, like {@link #GPU_COUNT}, no node
     * advertises it, so kube-scheduler must ignore it ({@code ignoredByScheduler: true}).
     */
    public static final String GPU_TFLOPS = "elasticgpu.io/gpu-tflops";

    /** NVIDIA's device plugin: whole cards; with HAMi's names below, the number of cards a share is taken on. */
    public static final String NVIDIA_GPU = "nvidia.com/gpu";
    /**
     * NVIDIA's device plugin, mixed strategy: MIG devices of one profile, {@code nvidia.com/mig-3g.40gb}; a compute
     * instance that takes part of its GPU instance is named so too, {@code nvidia.com/mig-1c.3g.40gb}.
     */
    public static final String NVIDIA_MIG_PREFIX = "nvidia.com/mig-";
    /** HAMi: memory of each card of {@link #NVIDIA_GPU}, in MiB. */
    public static final String HAMI_GPU_MEMORY = "nvidia.com/gpumem";
    /** HAMi: memory of each card of {@link #NVIDIA_GPU}, in percent of the card's memory. */
    public static final String HAMI_GPU_MEMORY_PERCENTAGE = "nvidia.com/gpumem-percentage";
    /** HAMi: compute of each card of {@link #NVIDIA_GPU}, in percent; 100 asks the card alone. */
    public static final String HAMI_GPU_CORES = "nvidia.com/gpucores";
    /** Aliyun gpushare: memory of one card (GiB by default, as its device plugin advertises it). */
    public static final String ALIYUN_GPU_MEM = "aliyun.com/gpu-mem";
    /** Volcano GPU share: memory of one card in MiB. */
    public static final String VOLCANO_GPU_MEMORY = "volcano.sh/gpu-memory";
    /** Volcano GPU share: whole cards. */
    public static final String VOLCANO_GPU_NUMBER = "volcano.sh/gpu-number";

    /**
     * HAMi's qualifiers of {@link #NVIDIA_GPU}: they say what share of each card a container takes. No device plugin
     * advertises them (kubelet admits a pod without counting extended resources its node does not have), so
     * kube-scheduler must be told to ignore them ({@code ignoredByScheduler: true}).
     */
    public static final List<String> HAMI_QUALIFIERS =
            List.of(HAMI_GPU_MEMORY, HAMI_GPU_MEMORY_PERCENTAGE, HAMI_GPU_CORES);

    /** Every name Elastic GPU schedules. */
    public static final List<String> ALL = List.of(
            GPU,
            GPU_MEMORY,
            GPU_CORE,
            GPU_COUNT,
            GPU_TFLOPS,
            NVIDIA_GPU,
            ALIYUN_GPU_MEM,
            VOLCANO_GPU_MEMORY,
            VOLCANO_GPU_NUMBER,
            HAMI_GPU_MEMORY,
            HAMI_GPU_MEMORY_PERCENTAGE,
            HAMI_GPU_CORES);

    private ResourceNames() {}
}
