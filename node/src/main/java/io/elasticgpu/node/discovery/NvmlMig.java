package io.elasticgpu.node.discovery;

import static io.elasticgpu.node.discovery.NvmlError.INVALID_ARGUMENT;
import static io.elasticgpu.node.discovery.NvmlError.NOT_FOUND;
import static io.elasticgpu.node.discovery.NvmlError.NOT_SUPPORTED;
import static io.elasticgpu.node.discovery.NvmlError.NO_PERMISSION;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.core.model.MigProfile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MIG through NVML: a card's mode now and after its next reset, and the MIG devices on it, each with its GPU
 * instance's slices and placement. The functions that list MIG devices came with R470 drivers; without them a card
 * in MIG mode is read with no devices (it is out of service either way, {@link Mig#outOfService}).
 */
final class NvmlMig {

    private static final Logger LOG = LoggerFactory.getLogger(NvmlMig.class);
    /** NVML_DEVICE_MIG_ENABLE. */
    private static final int ENABLED = 1;

    private final Nvml nvml;
    private final NvmlCall mode;
    private final Optional<Listing> listing;

    /** The functions that list MIG devices, present together or not at all. */
    private record Listing(
            NvmlCall maxDevices,
            NvmlCall deviceByIndex,
            NvmlCall gpuInstanceId,
            NvmlCall computeInstanceId,
            NvmlCall attributes,
            NvmlCall gpuInstanceById,
            NvmlCall gpuInstanceInfo) {}

    NvmlMig(Nvml nvml) {
        this.nvml = nvml;
        this.mode = nvml.bind("nvmlDeviceGetMigMode", ADDRESS, ADDRESS, ADDRESS);
        List<Optional<NvmlCall>> calls = List.of(
                nvml.bindIfPresent("nvmlDeviceGetMaxMigDeviceCount", ADDRESS, ADDRESS),
                nvml.bindIfPresent("nvmlDeviceGetMigDeviceHandleByIndex", ADDRESS, JAVA_INT, ADDRESS),
                nvml.bindIfPresent("nvmlDeviceGetGpuInstanceId", ADDRESS, ADDRESS),
                nvml.bindIfPresent("nvmlDeviceGetComputeInstanceId", ADDRESS, ADDRESS),
                nvml.bindIfPresent("nvmlDeviceGetAttributes_v2", ADDRESS, ADDRESS),
                nvml.bindIfPresent("nvmlDeviceGetGpuInstanceById", ADDRESS, JAVA_INT, ADDRESS),
                nvml.bindIfPresent("nvmlGpuInstanceGetInfo", ADDRESS, ADDRESS));
        this.listing = calls.stream().allMatch(Optional::isPresent)
                ? Optional.of(new Listing(
                        calls.get(0).get(),
                        calls.get(1).get(),
                        calls.get(2).get(),
                        calls.get(3).get(),
                        calls.get(4).get(),
                        calls.get(5).get(),
                        calls.get(6).get()))
                : Optional.empty();
    }

    /**
     * {@code d}'s MIG mode and devices; {@link Mig#OFF} for a card that cannot do MIG (NOT_SUPPORTED).
     *
     * @param model   the card's model, for its profiles' names
     * @param cardMib the card's memory, for a profile named by memory
     */
    Mig read(Nvml.Device d, String model, long cardMib) {
        boolean enabled;
        boolean pending;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment current = arena.allocate(JAVA_INT);
            MemorySegment next = arena.allocate(JAVA_INT);
            int rc = mode.invoke(d.handle(), current, next);
            if (rc == NOT_SUPPORTED) {
                return Mig.OFF;
            }
            mode.check(rc, d.subject());
            enabled = current.get(JAVA_INT, 0) == ENABLED;
            pending = next.get(JAVA_INT, 0) == ENABLED;
        }
        if (!enabled) {
            return new Mig(false, pending, List.of());
        }
        if (listing.isEmpty()) {
            LOG.warn(
                    "card {} is in MIG mode, but this driver's NVML cannot list MIG devices (R470 or later can)",
                    d.index());
            return new Mig(true, pending, List.of());
        }
        return new Mig(true, pending, devices(listing.get(), d, MigGeometry.of(model), cardMib));
    }

    private List<MigDevice> devices(Listing l, Nvml.Device d, Optional<MigGeometry> geometry, long cardMib) {
        List<MigDevice> out = new ArrayList<>();
        int most = unsignedInt(l.maxDevices(), d.handle(), d.subject());
        for (int i = 0; i < most; i++) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment handle = arena.allocate(ADDRESS);
                int rc = l.deviceByIndex().invoke(d.handle(), i, handle);
                if (rc == NOT_FOUND) {
                    continue; // no MIG device at this index: the indexes of destroyed ones stay free
                }
                if (rc == INVALID_ARGUMENT) {
                    break; // past the card's last index
                }
                l.deviceByIndex().check(rc, "for MIG device %d of card %d".formatted(i, d.index()));
                out.add(device(l, d, new Nvml.Device(d.index(), handle.get(ADDRESS, 0)), geometry, cardMib));
            }
        }
        return out;
    }

    private MigDevice device(
            Listing l, Nvml.Device card, Nvml.Device mig, Optional<MigGeometry> geometry, long cardMib) {
        String subject = "for a MIG device of card " + card.index();
        int gpuInstance = unsignedInt(l.gpuInstanceId(), mig.handle(), subject);
        int computeInstance = unsignedInt(l.computeInstanceId(), mig.handle(), subject);
        int computeSlices;
        int computeInstanceSlices;
        long memoryMib;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(NvmlLayouts.DEVICE_ATTRIBUTES);
            l.attributes().check(l.attributes().invoke(mig.handle(), a), subject);
            computeSlices = a.get(JAVA_INT, NvmlLayouts.ATTRIBUTES_GPU_INSTANCE_SLICES);
            computeInstanceSlices = a.get(JAVA_INT, NvmlLayouts.ATTRIBUTES_COMPUTE_INSTANCE_SLICES);
            memoryMib = a.get(JAVA_LONG, NvmlLayouts.ATTRIBUTES_MEMORY_MB);
        }
        int[] placement = placement(l, card, gpuInstance);
        String profile = name(geometry, computeSlices, placement[1], memoryMib, cardMib);
        if (computeInstanceSlices < computeSlices) {
            profile = computeInstanceSlices + "c." + profile;
        }
        return new MigDevice(
                nvml.uuid(mig),
                profile,
                gpuInstance,
                computeInstance,
                placement[0],
                placement[1],
                computeSlices,
                computeInstanceSlices,
                memoryMib);
    }

    /** The GPU instance's first memory slice and slice count; -1 and -1 when NVML refuses an unprivileged caller. */
    private static int[] placement(Listing l, Nvml.Device card, int gpuInstance) {
        String subject = "for GPU instance %d of card %d".formatted(gpuInstance, card.index());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment instance = arena.allocate(ADDRESS);
            int rc = l.gpuInstanceById().invoke(card.handle(), gpuInstance, instance);
            if (rc == NO_PERMISSION) {
                return new int[] {-1, -1};
            }
            l.gpuInstanceById().check(rc, subject);
            MemorySegment info = arena.allocate(NvmlLayouts.GPU_INSTANCE_INFO);
            rc = l.gpuInstanceInfo().invoke(instance.get(ADDRESS, 0), info);
            if (rc == NO_PERMISSION) {
                return new int[] {-1, -1};
            }
            l.gpuInstanceInfo().check(rc, subject);
            return new int[] {
                info.get(JAVA_INT, NvmlLayouts.GPU_INSTANCE_START), info.get(JAVA_INT, NvmlLayouts.GPU_INSTANCE_SIZE)
            };
        }
    }

    /**
     * NVIDIA's name of the profile. From the model's geometry when it has one: the profile of these slices, or, when
     * NVML would not give the memory slices, the profile of these compute slices whose memory slices come nearest to
     * {@code memoryMib} on a card of {@code cardMib}. Else compute slices and memory in whole GiB.
     */
    static String name(
            Optional<MigGeometry> geometry, int computeSlices, int memorySlices, long memoryMib, long cardMib) {
        return geometry.flatMap(g -> memorySlices > 0
                        ? g.profile(computeSlices, memorySlices)
                        : g.profiles().stream()
                                .filter(p -> p.computeSlices() == computeSlices)
                                .min(Comparator.comparingLong(
                                        p -> Math.abs(p.memorySlices() * cardMib / g.memorySlices() - memoryMib))))
                .map(MigProfile::name)
                .orElse("%dg.%dgb".formatted(computeSlices, Math.round(memoryMib / 1024.0)));
    }

    private static int unsignedInt(NvmlCall call, MemorySegment handle, String subject) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            call.check(call.invoke(handle, out), subject);
            return out.get(JAVA_INT, 0);
        }
    }
}
