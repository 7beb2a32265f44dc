package io.elasticgpu.bench.arena;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * What HAMi's NVIDIA device plugin (v2.10.0) writes on a node, so that its scheduler extender sees our simulated cards
 * as it would see real ones: the annotation {@value #REGISTER} (a JSON array, one object per card, Go's
 * {@code encoding/json} of HAMi's {@code DeviceInfo} with {@code omitempty}: zero values left out) and the handshake
 * {@value #HANDSHAKE}. The format is read from HAMi's source ({@code pkg/device/devices.go}, {@code DeviceInfo} and
 * {@code MarshalNodeDevices}; {@code pkg/device-plugin/nvidiadevice/nvinternal/plugin/register.go}); the arena's
 * harness writes it from the same inventory our node agent publishes.
 */
public final class HamiRegistration {

    public static final String REGISTER = "hami.io/node-nvidia-register";
    public static final String HANDSHAKE = "hami.io/node-handshake";
    /** HAMi's default {@code deviceSplitCount}: how many pods may share one card. */
    public static final int DEFAULT_SPLIT_COUNT = 10;

    /** HAMi's time format for the handshake (Go's {@code time.DateTime}), in the scheduler's local zone. */
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** One card as HAMi's {@code DeviceInfo}: field names, order and zero-omission as Go marshals it. */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    @JsonPropertyOrder({"id", "index", "count", "devmem", "devcore", "type", "numa", "mode", "health"})
    public record Device(
            String id,
            int index,
            int count,
            int devmem,
            int devcore,
            String type,
            int numa,
            String mode,
            boolean health) {}

    private HamiRegistration() {}

    /**
     * The cards of {@code inventory} as HAMi's device plugin registers them in its default mode ({@code hami-core},
     * core scaling 1, memory scaling 1): each shared by up to {@code splitCount} pods, with all its memory and 100 %
     * of its cores. A model not starting with "NVIDIA" is prefixed "NVIDIA-", as HAMi does; an unknown NUMA node is 0.
     */
    public static List<Device> devices(NodeInventory inventory, int splitCount) {
        return inventory.cards().stream()
                .map(c -> new Device(
                        c.uuid(),
                        c.index(),
                        splitCount,
                        Math.toIntExact(c.memoryMib()),
                        100,
                        c.model().startsWith("NVIDIA") ? c.model() : "NVIDIA-" + c.model(),
                        Math.max(0, c.numa()),
                        "hami-core",
                        c.healthy()))
                .toList();
    }

    /** The value of {@value #REGISTER}. */
    public static String register(List<Device> devices) {
        try {
            return JSON.writeValueAsString(devices);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write HAMi's registration", e);
        }
    }

    /**
     * A JSON merge patch setting {@code annotations}: HAMi's components write a node's annotations by patch, needing
     * no resourceVersion, so writes to other annotations (kwok's, HAMi's lock) never conflict with them.
     */
    public static String annotationsPatch(java.util.Map<String, String> annotations) {
        try {
            return JSON.writeValueAsString(java.util.Map.of("metadata", java.util.Map.of("annotations", annotations)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a patch", e);
        }
    }

    /** Reads a {@value #REGISTER} value as HAMi's scheduler does (unknown fields ignored, missing ones zero). */
    public static List<Device> read(String register) {
        try {
            return JSON.readValue(register, new TypeReference<List<Device>>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a HAMi registration: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * The value of {@value #HANDSHAKE} the device plugin writes when it has reported: {@code Reported_<time>}. HAMi's
     * scheduler writes {@code Requesting_<time>} and, when no report follows within 60 s and the node advertises no
     * {@code nvidia.com/gpu}, stops using the node; the harness answers every request as the device plugin would.
     */
    public static String reported(Instant now, ZoneId zone) {
        return "Reported_" + DATE_TIME.format(now.atZone(zone));
    }
}
