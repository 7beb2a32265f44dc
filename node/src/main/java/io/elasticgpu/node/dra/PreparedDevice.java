package io.elasticgpu.node.dra;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * What kubelet was told about one prepared device, and the share it stands for (to check the node's cards are never
 * over-committed by what is prepared). Immutable; stored in the checkpoint as JSON.
 *
 * @param requestNames the claim's requests the device serves
 * @param pool         the pool, this node's name
 * @param device       {@code gpu-<index>}
 * @param cdiDeviceIds what the container runtime injects
 * @param shareId      the allocator's share id, or empty
 * @param card         the card index
 * @param memoryMib    memory held on the card
 * @param milli        compute held, thousandths of the card
 */
public record PreparedDevice(
        List<String> requestNames,
        String pool,
        String device,
        List<String> cdiDeviceIds,
        String shareId,
        int card,
        @JsonProperty("memoryMiB") long memoryMib,
        int milli) {

    public PreparedDevice {
        requestNames = List.copyOf(requireNonNull(requestNames, "requestNames"));
        requireNonNull(pool, "pool");
        requireNonNull(device, "device");
        cdiDeviceIds = List.copyOf(requireNonNull(cdiDeviceIds, "cdiDeviceIds"));
        requireNonNull(shareId, "shareId");
    }
}
