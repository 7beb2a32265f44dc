package io.elasticgpu.node.dra;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * One device of our pool that a claim was allocated, with what it consumes of the card. Immutable.
 *
 * @param request   the claim's request (or {@code request/subrequest}) it serves
 * @param device    the device name, {@code gpu-<index>}
 * @param card      the card index
 * @param memoryMib memory the claim holds on the card
 * @param milli     compute the claim holds in thousandths (0 = no compute limit asked)
 * @param shareId   the allocator's share id, present for devices that allow several allocations
 */
public record ClaimDevice(
        String request, String device, int card, long memoryMib, int milli, Optional<String> shareId) {

    public ClaimDevice {
        requireNonNull(request, "request");
        requireNonNull(device, "device");
        requireNonNull(shareId, "shareId");
        if (memoryMib < 0 || milli < 0 || milli > 1000) {
            throw new IllegalArgumentException(
                    "claim device %s: memory must be >= 0 MiB and compute 0..1000 milli, were %d and %d"
                            .formatted(device, memoryMib, milli));
        }
    }

    /** The requests of {@code devices}, each once, in first-seen order. */
    public static List<String> requests(List<ClaimDevice> devices) {
        return devices.stream().map(ClaimDevice::request).distinct().toList();
    }
}
