package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One physical GPU as the driver reports it. Immutable.
 *
 * @param index      NVML's index, 0..n-1, the order of {@code nvidia-smi}
 * @param uuid       {@code GPU-…}, stable across reboots; what {@code NVIDIA_VISIBLE_DEVICES} names
 * @param model      the product name, e.g. {@code NVIDIA A100-SXM4-80GB}
 * @param memoryMib  total framebuffer memory
 * @param pciBusId   e.g. {@code 00000000:07:00.0}
 * @param minor      the minor number of {@code /dev/nvidia<minor>}
 * @param numaNode   the NUMA node the card hangs off, -1 when unknown
 * @param mig        its MIG mode and MIG devices (read, not managed)
 */
public record Gpu(
        int index, String uuid, String model, long memoryMib, String pciBusId, int minor, int numaNode, Mig mig) {

    /** A card whose MIG mode is {@code migEnabled}, without MIG devices, and without a change waiting for a reset. */
    public Gpu(
            int index,
            String uuid,
            String model,
            long memoryMib,
            String pciBusId,
            int minor,
            int numaNode,
            boolean migEnabled) {
        this(
                index,
                uuid,
                model,
                memoryMib,
                pciBusId,
                minor,
                numaNode,
                migEnabled ? new Mig(true, true, List.of()) : Mig.OFF);
    }

    public Gpu {
        requireNonNull(uuid, "uuid");
        requireNonNull(mig, "mig");
        requireNonNull(model, "model");
        requireNonNull(pciBusId, "pciBusId");
        if (index < 0) {
            throw new IllegalArgumentException("gpu %s: index must be >= 0, was %d".formatted(uuid, index));
        }
        if (memoryMib < 1) {
            throw new IllegalArgumentException(
                    "gpu %d (%s): memoryMib must be >= 1, was %d".formatted(index, uuid, memoryMib));
        }
    }

    /** Whether MIG mode is on now. */
    public boolean migEnabled() {
        return mig.enabled();
    }

    /** The device node a container needs to use this card. */
    public String devicePath() {
        return "/dev/nvidia" + minor;
    }
}
