package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

/**
 * One MIG device as NVML lists it: a compute instance of a GPU instance, what a container is given by its UUID.
 * Immutable.
 *
 * @param uuid                  {@code MIG-…}, what {@code NVIDIA_VISIBLE_DEVICES} names
 * @param profile               NVIDIA's name, e.g. {@code 3g.40gb}, or {@code 1c.3g.40gb} for a compute instance
 *                              that takes part of its GPU instance
 * @param gpuInstance           the GPU instance's id on its card
 * @param computeInstance       the compute instance's id in its GPU instance
 * @param start                 the first memory slice the GPU instance takes; -1 when NVML would not say (it asks a
 *                              privileged caller for a GPU instance's placement)
 * @param memorySlices          memory slices the GPU instance takes; -1 when NVML would not say
 * @param computeSlices         compute slices the GPU instance takes
 * @param computeInstanceSlices compute slices the compute instance takes, at most {@code computeSlices}
 * @param memoryMib             the MIG device's memory
 */
public record MigDevice(
        String uuid,
        String profile,
        int gpuInstance,
        int computeInstance,
        int start,
        int memorySlices,
        int computeSlices,
        int computeInstanceSlices,
        long memoryMib) {

    public MigDevice {
        requireNonNull(uuid, "uuid");
        requireNonNull(profile, "profile");
        if (computeSlices < 1 || computeInstanceSlices < 1 || computeInstanceSlices > computeSlices) {
            throw new IllegalArgumentException(
                    "MIG device %s: %d compute slices of a GPU instance of %d; a compute instance takes 1 to all"
                            .formatted(uuid, computeInstanceSlices, computeSlices));
        }
    }
}
