package io.elasticgpu.api.v1alpha1;

import static java.util.Objects.requireNonNull;

/**
 * What one container asks of GPUs, whatever names it used. Immutable.
 *
 * @param container    the container's name
 * @param role         app container, init container, or sidecar (an init container that keeps running)
 * @param cards        how many distinct cards
 * @param whole        whole cards (exclusive) rather than slices
 * @param milli        compute on each card for a slice, in milli-cards (gpu-core percent x 10); 0 for memory-only
 * @param memoryMib    memory on each card for a slice, in MiB; 0 for compute-only
 * @param family       which resource names the container used, so that the allocation can be told in its words
 * @param memoryPercent memory on each card for a slice in percent of that card's memory (HAMi's
 *                      {@code gpumem-percentage}), 1..99; 0 when asked in MiB or not at all
 * @param tflops       compute on each card in TFLOPS ({@link ResourceNames#GPU_TFLOPS}) instead of {@code milli}; 0
 *                     when not asked so
 * @param precision    what {@code tflops} are counted in, as the pod's {@link Annotations#TFLOPS_PRECISION} says;
 *                     empty for the default (or when no TFLOPS are asked)
 */
public record GpuAsk(
        String container,
        Role role,
        int cards,
        boolean whole,
        int milli,
        long memoryMib,
        Family family,
        int memoryPercent,
        int tflops,
        String precision) {

    /** An ask whose compute, if any, is a share of the card. */
    public GpuAsk(
            String container,
            Role role,
            int cards,
            boolean whole,
            int milli,
            long memoryMib,
            Family family,
            int memoryPercent) {
        this(container, role, cards, whole, milli, memoryMib, family, memoryPercent, 0, "");
    }

    /** An ask whose memory, if any, is in MiB. */
    public GpuAsk(String container, Role role, int cards, boolean whole, int milli, long memoryMib, Family family) {
        this(container, role, cards, whole, milli, memoryMib, family, 0);
    }

    /** When the container runs relative to the others. */
    public enum Role {
        APP,
        INIT,
        SIDECAR
    }

    /**
     * The resource names a container used; {@link #HAMI} is {@code nvidia.com/gpu} with a share of each card,
     * {@link #DRA} a request of a ResourceClaim (its "container" is {@code claim/<claim>/<request>}).
     */
    public enum Family {
        ELASTIC_GPU,
        NVIDIA,
        ALIYUN,
        VOLCANO,
        HAMI,
        DRA
    }

    public GpuAsk {
        requireNonNull(container, "container");
        requireNonNull(role, "role");
        requireNonNull(family, "family");
        requireNonNull(precision, "precision");
        if (tflops < 0 || tflops > 0 && (whole || milli > 0)) {
            throw new IllegalArgumentException(
                    "container %s: TFLOPS must be >= 0 and ask a slice's compute alone, was %d with %d milli"
                            .formatted(container, tflops, milli));
        }
        if (cards < 1) {
            throw new IllegalArgumentException("container %s: cards must be >= 1, was %d".formatted(container, cards));
        }
        if (memoryPercent < 0 || memoryPercent > 99 || memoryPercent > 0 && memoryMib > 0) {
            throw new IllegalArgumentException(
                    "container %s: memory in percent must be 1..99 and not with MiB, was %d %% and %d MiB"
                            .formatted(container, memoryPercent, memoryMib));
        }
        if (whole && (milli != 0 || memoryMib != 0 || memoryPercent != 0)) {
            throw new IllegalArgumentException("container %s: whole cards carry no slice".formatted(container));
        }
        if (!whole
                && (milli < 0
                        || milli >= 1000
                        || memoryMib < 0
                        || (milli == 0 && memoryMib == 0 && memoryPercent == 0 && tflops == 0))) {
            throw new IllegalArgumentException(
                    "container %s: a slice needs 1..999 milli and/or memory, was %d milli and %d MiB"
                            .formatted(container, milli, memoryMib));
        }
    }

    public static GpuAsk whole(String container, Role role, int cards, Family family) {
        return new GpuAsk(container, role, cards, true, 0, 0, family);
    }

    public static GpuAsk slice(String container, Role role, int cards, int milli, long memoryMib, Family family) {
        return new GpuAsk(container, role, cards, false, milli, memoryMib, family);
    }

    /** A slice whose compute is asked in TFLOPS of {@code precision} (empty: the default), and memory in MiB. */
    public static GpuAsk sliceTflops(
            String container, Role role, int cards, int tflops, String precision, long memoryMib, Family family) {
        return new GpuAsk(container, role, cards, false, 0, memoryMib, family, 0, tflops, precision);
    }

    /** Whether compute is asked in TFLOPS. */
    public boolean asksTflops() {
        return tflops > 0;
    }

    /** A slice whose memory is a percent of whichever card it is given: its MiB are known once the card is. */
    public static GpuAsk slicePercent(
            String container, Role role, int cards, int milli, int memoryPercent, Family family) {
        return new GpuAsk(container, role, cards, false, milli, 0, family, memoryPercent);
    }
}
