package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The MIG instances on one card and where a new one goes. Immutable.
 *
 * <p>A card with free slices can still refuse a profile: an instance may only start at its profile's starts, and two
 * may not share a memory slice. Where one goes therefore decides which profiles the card can take later.
 * {@link #placeKeepingLargest} puts it where the card keeps the most room for the largest profiles: of its possible
 * starts, the one after which the card's {@link #room} is greatest, largest profile first (a small instance goes to
 * the end of an empty card, leaving the start of the card, where the large profiles start, free).
 *
 * @param geometry  the card model's slices and profiles
 * @param instances the instances on the card, by start
 */
public record MigCard(MigGeometry geometry, List<Instance> instances) {

    /** One instance: its profile and the memory slice it starts at. */
    public record Instance(MigProfile profile, int start) {}

    public MigCard {
        requireNonNull(geometry, "geometry");
        instances = requireNonNull(instances, "instances").stream()
                .sorted(Comparator.comparingInt(Instance::start))
                .toList();
        int used = 0;
        int compute = 0;
        for (Instance i : instances) {
            if (!i.profile().starts().contains(i.start()) || (used & i.profile().mask(i.start())) != 0) {
                throw new IllegalArgumentException(
                        ("MIG card of %s: instance %s at memory slice %d is not a start of its profile or overlaps"
                                        + " another")
                                .formatted(
                                        geometry.models().getFirst(),
                                        i.profile().name(),
                                        i.start()));
            }
            used |= i.profile().mask(i.start());
            compute += i.profile().computeSlices();
        }
        if (compute > geometry.computeSlices()) {
            throw new IllegalArgumentException("MIG card of %s: instances take %d of %d compute slices"
                    .formatted(geometry.models().getFirst(), compute, geometry.computeSlices()));
        }
    }

    /** A card in MIG mode without instances. */
    public static MigCard empty(MigGeometry geometry) {
        return new MigCard(geometry, List.of());
    }

    public boolean isEmpty() {
        return instances.isEmpty();
    }

    /** The memory slices the instances take, one bit each. */
    public int usedMask() {
        int used = 0;
        for (Instance i : instances) {
            used |= i.profile().mask(i.start());
        }
        return used;
    }

    public int freeComputeSlices() {
        return geometry.computeSlices()
                - instances.stream().mapToInt(i -> i.profile().computeSlices()).sum();
    }

    public int freeMemorySlices() {
        return geometry.memorySlices() - Integer.bitCount(usedMask());
    }

    /** The starts at which an instance of {@code profile} could go now, ascending. */
    public List<Integer> freeStarts(MigProfile profile) {
        if (profile.computeSlices() > freeComputeSlices()) {
            return List.of();
        }
        int used = usedMask();
        return profile.starts().stream()
                .filter(s -> (used & profile.mask(s)) == 0)
                .toList();
    }

    /** This card with one more instance, at {@code start}. */
    public MigCard with(MigProfile profile, int start) {
        List<Instance> more = new ArrayList<>(instances);
        more.add(new Instance(profile, start));
        return new MigCard(geometry, more);
    }

    /**
     * For each of the geometry's profiles, largest first (most compute slices, then most memory slices), how many of
     * its starts are free now: what is left for the profiles that fragment a card most.
     */
    public int[] room() {
        List<MigProfile> largestFirst = geometry.profiles().reversed();
        int[] room = new int[largestFirst.size()];
        for (int i = 0; i < room.length; i++) {
            room[i] = freeStarts(largestFirst.get(i)).size();
        }
        return room;
    }

    /** The card with an instance of {@code profile} where the card keeps the most {@link #room}; empty if none fits. */
    public Optional<MigCard> placeKeepingLargest(MigProfile profile) {
        MigCard best = null;
        int[] bestRoom = null;
        for (int start : freeStarts(profile)) {
            MigCard placed = with(profile, start);
            int[] room = placed.room();
            if (best == null || Arrays.compare(room, bestRoom) > 0) {
                best = placed;
                bestRoom = room;
            }
        }
        return Optional.ofNullable(best);
    }

    /** The card with an instance of {@code profile} at its first free start; empty if none fits. */
    public Optional<MigCard> placeFirstFit(MigProfile profile) {
        List<Integer> starts = freeStarts(profile);
        return starts.isEmpty() ? Optional.empty() : Optional.of(with(profile, starts.getFirst()));
    }
}
