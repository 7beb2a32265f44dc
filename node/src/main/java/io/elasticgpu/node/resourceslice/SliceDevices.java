package io.elasticgpu.node.resourceslice;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The devices of the node's ResourceSlice: what the hardware and its health come to. Pure.
 *
 * <p>Each card is one device with {@code allowMultipleAllocations: true}, so several claims can share it; what they
 * share is consumable capacity (KEP-5075). {@code memory} is asked in steps of the memory block, from one block to
 * the card's memory rounded down to a block; a claim that asks no memory takes all of it, so a claim that names no
 * capacity gets the whole card and nothing fits beside it. {@code cores} is 0..100 percent in steps of 1 and
 * defaults to 0, which (as a memory-only slice in the device plugin path) means "no compute limit": sharing by
 * memory alone must not use up compute.
 */
public final class SliceDevices {

    private SliceDevices() {}

    public static List<Device> devices(Hardware hw, CardHealth health, long memoryBlockMib) {
        return devices(hw, health, memoryBlockMib, Set.of());
    }

    /**
     * @param devicePluginCards the cards that pods of the device plugin path still hold (the node switched to DRA
     *                          before they ended): tainted {@code NoSchedule} so that no claim is allocated beside
     *                          them, which kube-scheduler's allocator would otherwise do, not knowing of them
     */
    public static List<Device> devices(
            Hardware hw, CardHealth health, long memoryBlockMib, Set<Integer> devicePluginCards) {
        int[] islands = nvlinkIslands(hw);
        return hw.gpus().stream()
                .map(g -> device(
                        hw, g, islands[g.index()], health, memoryBlockMib, devicePluginCards.contains(g.index())))
                .toList();
    }

    static Device device(Hardware hw, Gpu g, int island, CardHealth health, long blockMib, boolean devicePluginPods) {
        DeviceBuilder b = new DeviceBuilder()
                .withName(DraNames.deviceName(g.index()))
                .withAllowMultipleAllocations(true)
                .withAttributes(attributes(hw, g, island))
                .withCapacity(capacity(g.memoryMib(), blockMib));
        if (!health.healthy(g.index())) {
            b.addToTaints(taint(health, g.index()));
        }
        if (devicePluginPods) {
            b.addToTaints(new DeviceTaintBuilder()
                    .withKey(DraNames.TAINT_DEVICE_PLUGIN)
                    .withValue("held")
                    .withEffect("NoSchedule")
                    .build());
        }
        return b.build();
    }

    static Map<String, DeviceAttribute> attributes(Hardware hw, Gpu g, int island) {
        Map<String, DeviceAttribute> a = new LinkedHashMap<>();
        a.put(
                DraNames.ATTR_MODEL,
                new DeviceAttributeBuilder().withString(g.model()).build());
        a.put(
                DraNames.ATTR_UUID,
                new DeviceAttributeBuilder().withString(g.uuid()).build());
        a.put(
                DraNames.ATTR_INDEX,
                new DeviceAttributeBuilder().withInt((long) g.index()).build());
        // A string, not a version: NVIDIA's versions (535.104.05) have leading zeros, which semver forbids.
        a.put(
                DraNames.ATTR_DRIVER_VERSION,
                new DeviceAttributeBuilder().withString(hw.driverVersion()).build());
        a.put(
                DraNames.ATTR_NUMA_NODE,
                new DeviceAttributeBuilder().withInt((long) g.numaNode()).build());
        a.put(
                DraNames.ATTR_NVLINK_ISLAND,
                new DeviceAttributeBuilder().withInt((long) island).build());
        a.put(
                DraNames.ATTR_MEMORY_MIB,
                new DeviceAttributeBuilder().withInt(g.memoryMib()).build());
        return a;
    }

    /** Memory and cores, each with the request policy that keeps asks on our grid (see the class comment). */
    static Map<String, DeviceCapacity> capacity(long memoryMib, long blockMib) {
        long usable = DraNames.offeredMemoryMib(memoryMib, blockMib);
        Map<String, DeviceCapacity> c = new LinkedHashMap<>();
        c.put(
                DraNames.MEMORY,
                new DeviceCapacityBuilder()
                        .withValue(mib(memoryMib))
                        .withRequestPolicy(new CapacityRequestPolicyBuilder()
                                .withDefault(mib(usable))
                                .withNewValidRange()
                                .withMin(mib(blockMib))
                                .withMax(mib(usable))
                                .withStep(mib(blockMib))
                                .endValidRange()
                                .build())
                        .build());
        c.put(
                DraNames.CORES,
                new DeviceCapacityBuilder()
                        .withValue(new Quantity("100"))
                        .withRequestPolicy(new CapacityRequestPolicyBuilder()
                                .withDefault(new Quantity("0"))
                                .withNewValidRange()
                                .withMin(new Quantity("0"))
                                .withMax(new Quantity("100"))
                                .withStep(new Quantity("1"))
                                .endValidRange()
                                .build())
                        .build());
        return c;
    }

    /** {@code NoExecute} when the card's error ended the work on it (its users must move), else {@code NoSchedule}. */
    static DeviceTaint taint(CardHealth health, int card) {
        return new DeviceTaintBuilder()
                .withKey(DraNames.TAINT_UNHEALTHY)
                .withValue(NodeLabels.value(health.reason(card))) // a label value, as for node taints
                .withEffect(health.lostWork(card) ? "NoExecute" : "NoSchedule")
                .build();
    }

    static Quantity mib(long mib) {
        return new Quantity(Long.toString(mib), "Mi");
    }

    /** For each card, the lowest index of the cards it reaches over NVLink (itself when none): a union-find. */
    static int[] nvlinkIslands(Hardware hw) {
        int n = hw.gpus().size();
        int[] root = new int[n];
        for (int i = 0; i < n; i++) {
            root[i] = i;
        }
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (hw.topology().between(a, b).kind() == LinkKind.NVLINK) {
                    int ra = find(root, a);
                    int rb = find(root, b);
                    root[Math.max(ra, rb)] = Math.min(ra, rb);
                }
            }
        }
        int[] island = new int[n];
        for (int i = 0; i < n; i++) {
            island[i] = find(root, i);
        }
        return island;
    }

    private static int find(int[] root, int i) {
        while (root[i] != i) {
            i = root[i];
        }
        return i;
    }
}
