package io.elasticgpu.simulator.replay;

import io.elasticgpu.core.model.MigCard;
import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.core.model.MigProfile;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every state a card of one MIG geometry can reach from empty, numbered, with the state each profile leads to from
 * each (placed keeping the largest profiles, or first fit) and each state's free memory slices and room: the replay's
 * fast form of {@link MigCard}, which decides every transition. Two cards whose instances take the same memory
 * slices and compute slices take the same profiles later, so a state is those two. The empty card is state 0.
 * Immutable.
 */
final class MigStates {

    private final MigGeometry geometry;
    private final int[][] keepLargest;
    private final int[][] firstFit;
    private final int[] freeMemory;
    private final long[] room;

    MigStates(MigGeometry geometry) {
        this.geometry = geometry;
        List<MigProfile> profiles = geometry.profiles();
        List<MigCard> states = new ArrayList<>();
        Map<Long, Integer> numbers = new HashMap<>();
        List<int[]> largest = new ArrayList<>();
        List<int[]> first = new ArrayList<>();
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        todo.add(number(MigCard.empty(geometry), states, numbers));
        while (!todo.isEmpty()) {
            int s = todo.poll();
            MigCard card = states.get(s);
            int[] toLargest = new int[profiles.size()];
            int[] toFirst = new int[profiles.size()];
            for (int p = 0; p < profiles.size(); p++) {
                toLargest[p] = next(card.placeKeepingLargest(profiles.get(p)), states, numbers, todo);
                toFirst[p] = next(card.placeFirstFit(profiles.get(p)), states, numbers, todo);
            }
            while (largest.size() <= s) {
                largest.add(null);
                first.add(null);
            }
            largest.set(s, toLargest);
            first.set(s, toFirst);
        }
        this.keepLargest = largest.toArray(int[][]::new);
        this.firstFit = first.toArray(int[][]::new);
        this.freeMemory = states.stream().mapToInt(MigCard::freeMemorySlices).toArray();
        this.room = states.stream().mapToLong(MigStates::packed).toArray();
    }

    private static int next(
            java.util.Optional<MigCard> placed,
            List<MigCard> states,
            Map<Long, Integer> numbers,
            ArrayDeque<Integer> todo) {
        if (placed.isEmpty()) {
            return -1;
        }
        int before = states.size();
        int n = number(placed.get(), states, numbers);
        if (states.size() > before) {
            todo.add(n);
        }
        return n;
    }

    private static int number(MigCard card, List<MigCard> states, Map<Long, Integer> numbers) {
        long key = card.usedMask() | ((long) card.freeComputeSlices() << 32);
        return numbers.computeIfAbsent(key, k -> {
            states.add(card);
            return states.size() - 1;
        });
    }

    /** The room, largest profile first, 4 bits a profile: a larger number keeps more room for the largest. */
    private static long packed(MigCard card) {
        long key = 0;
        for (int free : card.room()) {
            key = (key << 4) | Math.min(free, 15);
        }
        return key;
    }

    MigGeometry geometry() {
        return geometry;
    }

    /** The state after an instance of profile {@code p} placed keeping the largest, or -1 when it does not fit. */
    int keepLargest(int state, int p) {
        return keepLargest[state][p];
    }

    /** The state after an instance of profile {@code p} at its first free start, or -1 when it does not fit. */
    int firstFit(int state, int p) {
        return firstFit[state][p];
    }

    int freeMemory(int state) {
        return freeMemory[state];
    }

    long room(int state) {
        return room[state];
    }

    @Override
    public String toString() {
        return "MigStates[%s, %d states, free memory %s]"
                .formatted(geometry.models().getFirst(), freeMemory.length, Arrays.toString(freeMemory));
    }
}
