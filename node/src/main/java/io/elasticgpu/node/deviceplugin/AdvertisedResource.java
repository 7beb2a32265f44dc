package io.elasticgpu.node.deviceplugin;

import static java.util.Objects.requireNonNull;

/**
 * A resource the agent advertises to kubelet, and how its device ids map onto cards. Immutable.
 *
 * @param name    e.g. {@code elasticgpu.io/gpu-memory}
 * @param kind    what one device stands for
 * @param perCard devices per card for {@link Kind#PERCENT}, {@link Kind#COUNT}, {@link Kind#SHARE} and
 *                {@link Kind#REPLICA}; MiB per device for {@link Kind#MEMORY}; ignored for {@link Kind#WHOLE}
 */
public record AdvertisedResource(String name, Kind kind, long perCard) {

    /** What one device of a resource stands for. */
    public enum Kind {
        /** A whole card; the device id is the card's uuid. */
        WHOLE("", "card"),
        /** A block of {@code perCard} MiB of one card's memory; ids {@code <uuid>::m<n>}. */
        MEMORY("m", "memory block"),
        /** One percent of a card's compute; ids {@code <uuid>::p<n>}. */
        PERCENT("p", "percent"),
        /**
         * One of the cards of a multi-card slice ({@code gpu-count}), {@code perCard} per card; ids {@code
         * <uuid>::n<n>}. */
        COUNT("n", "card of a slice"),
        /**
         * A whole card or a share of one, as {@code nvidia.com/gpu} counts them: whole cards by NVIDIA's names, the
         * cards of a share by HAMi's ({@code nvidia.com/gpumem}, {@code gpucores}, which no plugin advertises), so
         * several containers may hold devices of one card; {@code perCard} per card; ids {@code <uuid>::s<n>}.
         */
        SHARE("s", "card or share of a card"),
        /** One of {@code perCard} virtual devices standing for a card in replicas mode; ids {@code <uuid>::r<n>}. */
        REPLICA("r", "replica");

        final String tag;
        final String unit;

        Kind(String tag, String unit) {
            this.tag = tag;
            this.unit = unit;
        }
    }

    public AdvertisedResource {
        requireNonNull(name, "name");
        requireNonNull(kind, "kind");
        if (kind != Kind.WHOLE && perCard < 1) {
            throw new IllegalArgumentException("resource %s: perCard must be >= 1, was %d".formatted(name, perCard));
        }
    }

    /** Devices of this resource on a card of {@code memoryMib}. */
    public long devicesOn(long memoryMib) {
        return switch (kind) {
            case WHOLE -> 1;
            case MEMORY -> memoryMib / perCard;
            case PERCENT, COUNT, SHARE, REPLICA -> perCard;
        };
    }

    /**
     * A short name usable in a socket file name: {@code elasticgpu.io/gpu-memory} → {@code elasticgpu.io-gpu-memory}.
     * */
    public String socketName() {
        return socketName(name);
    }

    /** The socket file name of resource {@code name}. */
    static String socketName(String name) {
        return "egpu-" + name.replace('/', '-') + ".sock";
    }
}
