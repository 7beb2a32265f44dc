package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One MIG GPU instance profile of a card model ({@code 3g.40gb}): the compute and memory slices an instance takes,
 * and the memory slices it may start at. Immutable.
 *
 * @param name          NVIDIA's name, {@code <compute>g.<memory>gb}
 * @param computeSlices compute slices an instance takes
 * @param memorySlices  memory slices an instance takes, side by side from its start
 * @param starts        the memory slices an instance may start at, ascending
 */
public record MigProfile(String name, int computeSlices, int memorySlices, List<Integer> starts) {

    public MigProfile {
        requireNonNull(name, "name");
        starts = List.copyOf(requireNonNull(starts, "starts"));
        if (name.isBlank() || computeSlices < 1 || memorySlices < 1 || starts.isEmpty()) {
            throw new IllegalArgumentException(
                    "MIG profile %s: a profile has a name, at least one compute and one memory slice and a start"
                            .formatted(name));
        }
        for (int i = 0; i < starts.size(); i++) {
            if (starts.get(i) < 0 || (i > 0 && starts.get(i) <= starts.get(i - 1))) {
                throw new IllegalArgumentException(
                        "MIG profile %s: starts must be ascending and >= 0, were %s".formatted(name, starts));
            }
        }
    }

    /** The memory slices an instance starting at {@code start} takes, one bit each. */
    public int mask(int start) {
        return ((1 << memorySlices) - 1) << start;
    }
}
