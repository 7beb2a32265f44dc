package io.elasticgpu.api.v1alpha1;

/**
 * Elastic GPU's names in Dynamic Resource PodGrant ({@code resource.k8s.io/v1}): the driver, its capacities, its
 * device attributes and its taint. The node agent publishes them in ResourceSlices; users write them in
 * DeviceClasses, ResourceClaims and CEL selectors ({@code device.capacity["gpu.elasticgpu.io"].memory}).
 */
public final class DraNames {

    /**
     * The driver name: ResourceSlices' {@code spec.driver}, allocation results' {@code driver}, kubelet's plugin name.
     * */
    public static final String DRIVER = "gpu.elasticgpu.io";

    /** Consumable capacity: GPU memory, a quantity in bytes published as whole MiB ({@code 81920Mi}). */
    public static final String MEMORY = "memory";
    /** Consumable capacity: percent of the card's compute, 0..100. */
    public static final String CORES = "cores";

    public static final String ATTR_MODEL = "model";
    public static final String ATTR_UUID = "uuid";
    public static final String ATTR_INDEX = "index";
    public static final String ATTR_DRIVER_VERSION = "driverVersion";
    public static final String ATTR_NUMA_NODE = "numaNode";
    /** The lowest index among the cards joined to this one by NVLink (itself when it has none). */
    public static final String ATTR_NVLINK_ISLAND = "nvlinkIsland";

    public static final String ATTR_MEMORY_MIB = "memoryMiB";

    /** The device taint of an unhealthy card; its value says why (e.g. {@code Xid-79}). */
    public static final String TAINT_UNHEALTHY = DRIVER + "/unhealthy";
    /**
     * The {@code NoSchedule} device taint on a card that pods of the device plugin path still hold, when the node
     * switched to DRA before they ended: a card is offered through one API at a time.
     */
    public static final String TAINT_DEVICE_PLUGIN = DRIVER + "/device-plugin-pods";

    private DraNames() {}

    /**
     * The ResourceClaimTemplate made from ElasticGPUClaim {@code claim} of a DRA class, in the claim's namespace, and
     * the name of the pod's claim that uses it.
     */
    public static String claimTemplate(String claim) {
        return "egpuc-" + claim;
    }

    /**
     * The memory a card offers to claims: its memory rounded down to the block (at least one block). It is the
     * agent's request policy's largest ask and its default (what a claim naming no memory consumes), so a device
     * that consumed this much holds the card alone.
     */
    public static long offeredMemoryMib(long cardMib, long blockMib) {
        return Math.max(blockMib, cardMib / blockMib * blockMib);
    }

    /** The device name of card {@code index} in the node's pool. */
    public static String deviceName(int index) {
        return "gpu-" + index;
    }

    /** The card index a device name of ours stands for, or -1 when it is not one of ours. */
    public static int cardIndex(String deviceName) {
        if (deviceName == null || !deviceName.matches("gpu-(0|[1-9][0-9]{0,5})")) {
            return -1;
        }
        return Integer.parseInt(deviceName.substring(4));
    }
}
