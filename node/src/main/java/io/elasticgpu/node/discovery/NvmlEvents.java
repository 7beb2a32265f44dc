package io.elasticgpu.node.discovery;

import static io.elasticgpu.node.discovery.NvmlError.GPU_IS_LOST;
import static io.elasticgpu.node.discovery.NvmlError.NOT_SUPPORTED;
import static io.elasticgpu.node.discovery.NvmlError.SUCCESS;
import static io.elasticgpu.node.discovery.NvmlError.TIMEOUT;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** NVML's event sets: the downcalls to create one, register cards with it, wait on it and free it. */
final class NvmlEvents {

    /** nvmlEventTypeXidCriticalError: the event's data is the Xid code. */
    static final long XID = 0x8L;
    /** nvmlEventTypeDoubleBitEccError. */
    static final long DOUBLE_BIT_ECC = 0x2L;

    /** What one wait on an event set brought. */
    sealed interface Waited {

        /** {@code device} is the raw nvmlDevice_t address, to be matched against the cards' handles. */
        record Event(long device, long type, long data) implements Waited {}

        record TimedOut() implements Waited {}

        /** NVML_ERROR_GPU_IS_LOST; {@code device} is 0 when the driver did not say which card. */
        record Lost(long device, String message) implements Waited {}
    }

    private final NvmlCall create, register, await, free;

    NvmlEvents(Nvml nvml) {
        create = nvml.bind("nvmlEventSetCreate", ADDRESS);
        register = nvml.bind("nvmlDeviceRegisterEvents", ADDRESS, JAVA_LONG, ADDRESS);
        await = nvml.bind("nvmlEventSetWait_v2", ADDRESS, ADDRESS, JAVA_INT);
        free = nvml.bind("nvmlEventSetFree", ADDRESS);
    }

    MemorySegment createSet() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            create.check(create.invoke(out), "");
            return out.get(ADDRESS, 0);
        }
    }

    /** False when the card cannot report one of {@code types} (NOT_SUPPORTED). */
    boolean register(Nvml.Device card, long types, MemorySegment set) {
        int rc = register.invoke(card.handle(), types, set);
        if (rc == NOT_SUPPORTED) {
            return false;
        }
        register.check(rc, card.subject());
        return true;
    }

    /** One event, or none within {@code timeoutMillis}. */
    Waited await(MemorySegment set, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(NvmlLayouts.EVENT_DATA); // zeroed, so an unset device reads as 0
            int rc = await.invoke(set, data, timeoutMillis);
            long device = data.get(ADDRESS, NvmlLayouts.EVENT_DEVICE).address();
            return switch (rc) {
                case SUCCESS ->
                    new Waited.Event(
                            device,
                            data.get(JAVA_LONG, NvmlLayouts.EVENT_TYPE),
                            data.get(JAVA_LONG, NvmlLayouts.EVENT_VALUE));
                case TIMEOUT -> new Waited.TimedOut();
                case GPU_IS_LOST ->
                    new Waited.Lost(device, await.failure(rc, "").getMessage());
                default -> throw await.failure(rc, "");
            };
        }
    }

    void free(MemorySegment set) {
        free.check(free.invoke(set), "");
    }
}
