package io.elasticgpu.api.v1alpha1;

/** Annotation keys Elastic GPU reads and writes. */
public final class Annotations {

    /**
     * On a node: its cards, their health and the links between them, as {@link NodeInventory} JSON. Written by the
     * node agent (and by the e2e harness for fake nodes); read by the scheduler extender and the controller.
     */
    public static final String INVENTORY = "elasticgpu.io/inventory";

    /**
     * On a node: when the extender last saw GPU capacity free up there. Writing it is a node event, which makes
     * kube-scheduler retry the pods the extender turned away (see the scheduler's {@code requeue} package).
     */
    public static final String CAPACITY_FREED = "elasticgpu.io/capacity-freed";

    /**
     * On a node: what the processes on its cards use, per container, as {@link NodeUsage} JSON. Written by the node
     * agent from NVML when it changed noticeably; read by {@code egpu inspect} and the dashboard.
     */
    public static final String USAGE = "elasticgpu.io/usage";

    /**
     * On a node: how the node agent holds shares to their limits, as JSON: {@code layout} (as
     * {@link NodeLabels#ISOLATION} says), {@code memory} (what holds a share's memory: {@code mps}, {@code mps+dmem},
     * {@code environment}), {@code bypass} (what stops a process going around MPS: {@code driver} or {@code agent}) and
     * {@code why} (why this layout). Absent without isolation.
     */
    public static final String ISOLATION = "elasticgpu.io/isolation";

    /**
     * On a pod: the precision its containers' {@link ResourceNames#GPU_TFLOPS} are counted in ({@code fp32},
     * {@code tf32}, {@code fp16}, {@code bf16}, {@code int8}); bf16 when absent.
     */
    public static final String TFLOPS_PRECISION = "elasticgpu.io/tflops-precision";

    /** On a pod: the cards each container holds and the share on each, as {@link PodGrant} JSON. */
    public static final String ALLOCATION = "elasticgpu.io/allocation";
    /** On a pod: when the extender chose its cards, in Unix nanoseconds; the node agent matches the oldest first. */
    public static final String ASSUME_TIME = "elasticgpu.io/assume-time";
    /**
     * On a pod: {@value #PHASE_ASSUMED} once the extender chose its cards, {@value #PHASE_ALLOCATED} once kubelet gave
     * them. */
    public static final String PHASE = "elasticgpu.io/phase";

    public static final String PHASE_ASSUMED = "assumed";
    public static final String PHASE_ALLOCATED = "allocated";

    /** Whether the node agent recorded what kubelet gave the pod ({@value #PHASE}: {@value #PHASE_ALLOCATED}). */
    public static boolean allocated(io.fabric8.kubernetes.api.model.Pod pod) {
        java.util.Map<String, String> a =
                pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
        return a != null && PHASE_ALLOCATED.equals(a.get(PHASE));
    }

    /** Aliyun gpushare (seed 001): the card index, the pod's and the card's memory, when assumed, whether given. */
    public static final String ALIYUN_INDEX = "ALIYUN_COM_GPU_MEM_IDX";

    public static final String ALIYUN_POD_MEMORY = "ALIYUN_COM_GPU_MEM_POD";
    public static final String ALIYUN_CARD_MEMORY = "ALIYUN_COM_GPU_MEM_DEV";
    public static final String ALIYUN_ASSUME_TIME = "ALIYUN_COM_GPU_MEM_ASSUME_TIME";
    public static final String ALIYUN_ASSIGNED = "ALIYUN_COM_GPU_MEM_ASSIGNED";

    /** Volcano GPU share (seed 004): the card index, when predicated, whether given. */
    public static final String VOLCANO_INDEX = "volcano.sh/gpu-index";

    public static final String VOLCANO_PREDICATE_TIME = "volcano.sh/predicate-time";
    public static final String VOLCANO_ASSIGNED = "volcano.sh/gpu-assigned";

    private Annotations() {}
}
