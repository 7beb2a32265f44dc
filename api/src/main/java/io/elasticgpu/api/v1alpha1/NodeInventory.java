package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A node's GPUs as the node agent publishes them in the {@link Annotations#INVENTORY} annotation. Immutable.
 *
 * <pre>{@code
 * {"cards": [{"index": 0, "uuid": "GPU-5e1f...", "model": "NVIDIA A100-SXM4-80GB", "memoryMiB": 81920,
 *             "healthy": true, "numa": 0}, ...],
 *  "links": [{"a": 0, "b": 1, "kind": "NVLINK", "nvlinks": 12}, ...]}
 * }</pre>
 *
 * Pairs of cards without a link entry reach each other across sockets ({@code SYS}). Link kinds, best first:
 * {@code NVLINK} (with the lane count), {@code PCIE_SWITCH} ({@code PIX}/{@code PXB}), {@code HOST_BRIDGE}
 * ({@code PHB}), {@code NUMA_NODE} ({@code NODE}), {@code CROSS_SOCKET} ({@code SYS}).
 *
 * @param cards every card, {@code cards.get(i).index() == i}
 * @param links the connections better than {@code CROSS_SOCKET}, each pair once
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeInventory(List<Card> cards, List<Link> links) {

    /**
     * One GPU. {@code numa} is -1 when unknown; {@code reason} says why an unhealthy card is (absent when healthy);
     * {@code mig} is absent for a card whose MIG mode is off and stays so.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Card(
            int index,
            String uuid,
            String model,
            @JsonProperty("memoryMiB") long memoryMib,
            boolean healthy,
            int numa,
            String reason,
            Mig mig) {
        public Card {
            requireNonNull(uuid, "uuid");
            requireNonNull(model, "model");
        }

        /** A card with MIG off, and no reason given. */
        public Card(int index, String uuid, String model, long memoryMib, boolean healthy, int numa) {
            this(index, uuid, model, memoryMib, healthy, numa, null, null);
        }
    }

    /**
     * A card's MIG mode now ({@code enabled}) and after its next reset ({@code pending}), and its MIG devices.
     *
     * <pre>{@code
     * "mig": {"enabled": true, "pending": true, "devices": [{"uuid": "MIG-…", "profile": "3g.40gb",
     *         "gpuInstance": 1, "computeInstance": 0, "start": 4, "memorySlices": 4, "computeSlices": 3,
     *         "memoryMiB": 40192}]}
     * }</pre>
     */
    public record Mig(boolean enabled, boolean pending, List<MigDevice> devices) {
        public Mig {
            devices = List.copyOf(devices == null ? List.of() : devices);
        }
    }

    /**
     * One MIG device: compute instance {@code computeInstance} of GPU instance {@code gpuInstance}, which takes
     * {@code memorySlices} memory slices from {@code start} (both -1 when NVML would not say) and
     * {@code computeSlices} compute slices.
     */
    public record MigDevice(
            String uuid,
            String profile,
            int gpuInstance,
            int computeInstance,
            int start,
            int memorySlices,
            int computeSlices,
            @JsonProperty("memoryMiB") long memoryMib) {
        public MigDevice {
            requireNonNull(uuid, "uuid");
            requireNonNull(profile, "profile");
        }
    }

    /** The connection between cards {@code a} and {@code b}. */
    public record Link(int a, int b, String kind, int nvlinks) {
        public Link {
            requireNonNull(kind, "kind");
        }
    }

    private static final Set<String> KINDS =
            Set.of("NVLINK", "PCIE_SWITCH", "HOST_BRIDGE", "NUMA_NODE", "CROSS_SOCKET");

    public NodeInventory {
        cards = List.copyOf(requireNonNull(cards, "cards"));
        links = List.copyOf(links == null ? List.of() : links);
        for (int i = 0; i < cards.size(); i++) {
            if (cards.get(i).index() != i) {
                throw new IllegalArgumentException(
                        "inventory: card at position %d has index %d; indexes must be 0..%d in order"
                                .formatted(i, cards.get(i).index(), cards.size() - 1));
            }
        }
        Set<String> pairs = new HashSet<>();
        for (Link l : links) {
            if (l.a() == l.b() || l.a() < 0 || l.b() < 0 || l.a() >= cards.size() || l.b() >= cards.size()) {
                throw new IllegalArgumentException("inventory: link %d-%d does not join two of the %d cards"
                        .formatted(l.a(), l.b(), cards.size()));
            }
            if (!KINDS.contains(l.kind())) {
                throw new IllegalArgumentException(
                        "inventory: link %d-%d has kind %s; use one of %s".formatted(l.a(), l.b(), l.kind(), KINDS));
            }
            if (!pairs.add(Math.min(l.a(), l.b()) + "-" + Math.max(l.a(), l.b()))) {
                throw new IllegalArgumentException("inventory: link %d-%d is listed twice".formatted(l.a(), l.b()));
            }
        }
    }

    public String toJson() {
        return AnnotationJson.write(this, "inventory");
    }

    /**
     * @throws IllegalArgumentException when {@code json} is not an inventory, saying what is wrong
     */
    public static NodeInventory fromJson(String json) {
        return AnnotationJson.read(
                json, NodeInventory.class, "inventory", i -> i.cards() != null, "a JSON object with \"cards\"");
    }
}
