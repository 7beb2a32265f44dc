package io.elasticgpu.api.v1alpha1;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;

/**
 * Reads a container that asks by HAMi's names: {@code nvidia.com/gpu} counts cards, and {@code nvidia.com/gpumem}
 * (MiB), {@code nvidia.com/gpumem-percentage} and {@code nvidia.com/gpucores} (percent) say what share of each card it
 * takes. The meaning follows HAMi v2.10 (docs/user-guide.md, "Pods written for HAMi"): memory left out means all of the
 * card's memory, so no other share fits beside it and the ask is whole cards; {@code gpucores: 100} asks a card of its
 * own; {@code gpumem} wins over {@code gpumem-percentage}, which is a percent of whichever card the container is given
 * (its MiB rounded down, as HAMi computes them).
 */
final class HamiNames {

    private HamiNames() {}

    /**
     * @param cards      {@code nvidia.com/gpu}
     * @param memoryMib  {@code nvidia.com/gpumem}
     * @param memPercent {@code nvidia.com/gpumem-percentage}
     * @param cores      {@code nvidia.com/gpucores}
     * @throws InvalidAskException when the share is not one card's, or has no cards to be taken on
     */
    static GpuAsk read(String name, Role role, long cards, long memoryMib, long memPercent, long cores) {
        boolean qualified = memoryMib + memPercent + cores > 0;
        if (cards == 0) {
            throw new InvalidAskException(("container %s asks %s without %s; add %s: 1 (the number of cards that"
                            + " each give this share; HAMi's webhook adds it, Elastic GPU leaves pods as written)")
                    .formatted(
                            name,
                            given(memoryMib, memPercent, cores),
                            ResourceNames.NVIDIA_GPU,
                            ResourceNames.NVIDIA_GPU));
        }
        checkPercent(
                name,
                ResourceNames.HAMI_GPU_CORES,
                cores,
                "for a card of its own; more cards with " + ResourceNames.NVIDIA_GPU);
        checkPercent(
                name, ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE, memPercent, "(or leave it out) for all of its memory");
        Family family = qualified ? Family.HAMI : Family.NVIDIA;
        boolean allMemory = memoryMib == 0 && (memPercent == 0 || memPercent == 100);
        if (allMemory || cores == 100) { // all of the card's memory, or all of its compute: the card alone
            return GpuAsk.whole(name, role, (int) cards, family);
        }
        if (memoryMib > 0) {
            return GpuAsk.slice(name, role, (int) cards, (int) cores * 10, memoryMib, family);
        }
        // A percent of whichever card it is given, as HAMi reads it: its MiB are known once the card is.
        return GpuAsk.slicePercent(name, role, (int) cards, (int) cores * 10, (int) memPercent, family);
    }

    private static void checkPercent(String name, String resource, long value, String whole) {
        if (value > 100) {
            throw new InvalidAskException(
                    "container %s asks %s: %d; it is percent of one card and at most 100: ask for %s: 100 %s"
                            .formatted(name, resource, value, resource, whole));
        }
    }

    private static String given(long memoryMib, long memPercent, long cores) {
        return memoryMib > 0
                ? ResourceNames.HAMI_GPU_MEMORY + ": " + memoryMib
                : memPercent > 0
                        ? ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE + ": " + memPercent
                        : ResourceNames.HAMI_GPU_CORES + ": " + cores;
    }
}
