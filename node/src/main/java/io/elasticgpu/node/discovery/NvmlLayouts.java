package io.elasticgpu.node.discovery;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The C structs and function types of {@code nvml.h} that {@link Nvml} passes across, as {@code java.lang.foreign}
 * layouts with the byte offsets of the fields it reads. {@code nvmlReturn_t}, the other enums and {@code unsigned int}
 * are 32-bit, {@code unsigned long long} is 64-bit; handles ({@code nvmlDevice_t}, {@code nvmlEventSet_t}) are opaque
 * pointers.
 */
final class NvmlLayouts {

    /** {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}. */
    static final int DRIVER_VERSION_SIZE = 80;
    /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
    static final int UUID_SIZE = 96;
    /** {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
    static final int NAME_SIZE = 96;
    /** {@code NVML_NVLINK_MAX_LINKS}: link numbers a scan tries, 0..17. */
    static final int NVLINK_MAX_LINKS = 18;

    /** {@code nvmlMemory_t}: total, free, used, in bytes. */
    static final StructLayout MEMORY = MemoryLayout.structLayout(
            JAVA_LONG.withName("total"), JAVA_LONG.withName("free"), JAVA_LONG.withName("used"));

    /**
     * {@code nvmlPciInfo_t} as {@code nvmlDeviceGetPciInfo_v3} and {@code nvmlDeviceGetNvLinkRemotePciInfo_v2} fill
     * it: 68 bytes, 4-aligned; the char array before the ints is 16 long, so C adds no padding anywhere.
     */
    static final StructLayout PCI_INFO = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("busIdLegacy"),
            JAVA_INT.withName("domain"),
            JAVA_INT.withName("bus"),
            JAVA_INT.withName("device"),
            JAVA_INT.withName("pciDeviceId"),
            JAVA_INT.withName("pciSubSystemId"),
            MemoryLayout.sequenceLayout(32, JAVA_BYTE).withName("busId"));

    /**
     * {@code nvmlEventData_t}: a pointer, two 64-bit fields, then two ints. The ints end on a multiple of 8, so C
     * adds no tail padding and the struct is 32 bytes; a field added after them would need
     * {@code MemoryLayout.paddingLayout} here, which {@code structLayout} would otherwise reject as misaligned.
     */
    static final StructLayout EVENT_DATA = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            JAVA_LONG.withName("eventType"),
            JAVA_LONG.withName("eventData"),
            JAVA_INT.withName("gpuInstanceId"),
            JAVA_INT.withName("computeInstanceId"));

    /**
     * {@code nvmlProcessInfo_t} as {@code nvmlDeviceGetComputeRunningProcesses_v3} and
     * {@code nvmlDeviceGetMPSComputeRunningProcesses_v3} fill it; the {@code _v2} functions fill
     * {@code nvmlProcessInfo_v2_t}, which has the same fields ({@code nvml.h} of NVML API 11 to 13, where
     * {@code typedef struct nvmlProcessInfo_v2_st {...} nvmlProcessInfo_v2_t, nvmlProcessInfo_t}). C puts 4 bytes of
     * padding after {@code pid} so that {@code usedGpuMemory} is 8-aligned: 24 bytes. {@code usedGpuMemory} is in
     * bytes, {@code NVML_VALUE_NOT_AVAILABLE} ({@code (unsigned long long) -1}) when the driver cannot say.
     */
    static final StructLayout PROCESS_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("usedGpuMemory"),
            JAVA_INT.withName("gpuInstanceId"),
            JAVA_INT.withName("computeInstanceId"));

    /**
     * {@code nvmlProcessUtilizationSample_t} of {@code nvmlDeviceGetProcessUtilization} ({@code nvml.h},
     * {@code typedef struct nvmlProcessUtilizationSample_st}): pid, 4 bytes of padding, the CPU timestamp in
     * microseconds, then four percentages: 32 bytes.
     */
    static final StructLayout PROCESS_UTILIZATION_SAMPLE = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("timeStamp"),
            JAVA_INT.withName("smUtil"),
            JAVA_INT.withName("memUtil"),
            JAVA_INT.withName("encUtil"),
            JAVA_INT.withName("decUtil"));

    /**
     * {@code nvmlDeviceAttributes_t} of {@code nvmlDeviceGetAttributes_v2}: eight ints (SMs, five engine counts, the
     * GPU instance's and the compute instance's compute slices), then the memory in MiB: 40 bytes.
     */
    static final StructLayout DEVICE_ATTRIBUTES = MemoryLayout.structLayout(
            JAVA_INT.withName("multiprocessorCount"),
            JAVA_INT.withName("sharedCopyEngineCount"),
            JAVA_INT.withName("sharedDecoderCount"),
            JAVA_INT.withName("sharedEncoderCount"),
            JAVA_INT.withName("sharedJpegCount"),
            JAVA_INT.withName("sharedOfaCount"),
            JAVA_INT.withName("gpuInstanceSliceCount"),
            JAVA_INT.withName("computeInstanceSliceCount"),
            JAVA_LONG.withName("memorySizeMB"));

    /**
     * {@code nvmlGpuInstanceInfo_t} of {@code nvmlGpuInstanceGetInfo}: the parent card's handle, the instance's id and
     * profile id, then its placement ({@code nvmlGpuInstancePlacement_t}: first memory slice, slice count): 24 bytes.
     */
    static final StructLayout GPU_INSTANCE_INFO = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            JAVA_INT.withName("id"),
            JAVA_INT.withName("profileId"),
            JAVA_INT.withName("start"),
            JAVA_INT.withName("size"));

    static final long MEMORY_TOTAL = MEMORY.byteOffset(groupElement("total"));
    static final long PCI_DOMAIN = PCI_INFO.byteOffset(groupElement("domain"));
    static final long PCI_BUS = PCI_INFO.byteOffset(groupElement("bus"));
    static final long PCI_DEVICE = PCI_INFO.byteOffset(groupElement("device"));
    static final long PCI_BUS_ID = PCI_INFO.byteOffset(groupElement("busId"));
    static final long EVENT_DEVICE = EVENT_DATA.byteOffset(groupElement("device"));
    static final long EVENT_TYPE = EVENT_DATA.byteOffset(groupElement("eventType"));
    static final long EVENT_VALUE = EVENT_DATA.byteOffset(groupElement("eventData"));
    static final long PROCESS_PID = PROCESS_INFO.byteOffset(groupElement("pid"));
    static final long PROCESS_USED_MEMORY = PROCESS_INFO.byteOffset(groupElement("usedGpuMemory"));
    static final long SAMPLE_PID = PROCESS_UTILIZATION_SAMPLE.byteOffset(groupElement("pid"));
    static final long SAMPLE_TIMESTAMP = PROCESS_UTILIZATION_SAMPLE.byteOffset(groupElement("timeStamp"));
    static final long SAMPLE_SM = PROCESS_UTILIZATION_SAMPLE.byteOffset(groupElement("smUtil"));
    static final long ATTRIBUTES_GPU_INSTANCE_SLICES =
            DEVICE_ATTRIBUTES.byteOffset(groupElement("gpuInstanceSliceCount"));
    static final long ATTRIBUTES_COMPUTE_INSTANCE_SLICES =
            DEVICE_ATTRIBUTES.byteOffset(groupElement("computeInstanceSliceCount"));
    static final long ATTRIBUTES_MEMORY_MB = DEVICE_ATTRIBUTES.byteOffset(groupElement("memorySizeMB"));
    static final long GPU_INSTANCE_START = GPU_INSTANCE_INFO.byteOffset(groupElement("start"));
    static final long GPU_INSTANCE_SIZE = GPU_INSTANCE_INFO.byteOffset(groupElement("size"));
    static final long SAMPLE_MEMORY = PROCESS_UTILIZATION_SAMPLE.byteOffset(groupElement("memUtil"));

    /** {@code const char *nvmlErrorString(nvmlReturn_t)}. */
    static final FunctionDescriptor ERROR_STRING = FunctionDescriptor.of(ADDRESS, JAVA_INT);

    /** Every other NVML function returns {@code nvmlReturn_t}; {@code arguments} is its parameter list. */
    static FunctionDescriptor returningCode(MemoryLayout... arguments) {
        return FunctionDescriptor.of(JAVA_INT, arguments);
    }

    private NvmlLayouts() {}
}
