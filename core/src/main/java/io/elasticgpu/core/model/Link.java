package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

/**
 * The connection between two cards. Immutable.
 *
 * @param kind    the best path between the two cards
 * @param nvlinks number of NVLink lanes between them; more than zero only for {@link LinkKind#NVLINK}
 */
public record Link(LinkKind kind, int nvlinks) {

    /** What cards without topology information are assumed to share: nothing better than the host. */
    public static final Link UNKNOWN = new Link(LinkKind.CROSS_SOCKET, 0);

    public Link {
        requireNonNull(kind, "kind");
        if (kind == LinkKind.NVLINK && nvlinks < 1) {
            throw new IllegalArgumentException("link: NVLINK needs nvlinks >= 1, was %d".formatted(nvlinks));
        }
        if (kind != LinkKind.NVLINK && nvlinks != 0) {
            throw new IllegalArgumentException("link: %s cannot have nvlinks, was %d".formatted(kind, nvlinks));
        }
    }

    public static Link nvlink(int lanes) {
        return new Link(LinkKind.NVLINK, lanes);
    }

    public static Link of(LinkKind kind) {
        return new Link(kind, 0);
    }

    /**
     * Higher is better. Every NVLink beats every PCIe path, and more lanes beat fewer; PCIe paths rank by how close
     * to the cards they stay.
     */
    public int rank() {
        return switch (kind) {
            case NVLINK -> 10 + nvlinks;
            case PCIE_SWITCH -> 4;
            case HOST_BRIDGE -> 3;
            case NUMA_NODE -> 2;
            case CROSS_SOCKET -> 1;
        };
    }
}
