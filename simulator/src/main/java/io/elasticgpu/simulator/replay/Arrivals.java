package io.elasticgpu.simulator.replay;

import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The order pods arrive in for one seed (PROTOCOL.md, replay steps 3 and 4): the trace sorted by name and
 * shuffled, then grown with clones drawn uniformly from the original pods until the GPU asked reaches
 * {@code inflation x capacity}, or shrunk by random removals while it exceeds that.
 */
public final class Arrivals {

    private Arrivals() {}

    public static List<TracePod> order(
            List<TracePod> original, long capacityMilli, double inflation, RandomGenerator random) {
        if (!(inflation > 0)) {
            throw new IllegalArgumentException("inflation must be > 0, was " + inflation);
        }
        List<TracePod> pods = new ArrayList<>(original);
        pods.sort(Comparator.comparing(TracePod::name));
        shuffle(pods, random);
        long target = (long) (inflation * capacityMilli);
        long asked = pods.stream().mapToLong(p -> p.ask().totalMilli()).sum();
        if (asked > target) {
            while (asked > target) {
                asked -= pods.remove(random.nextInt(pods.size())).ask().totalMilli();
            }
            return pods;
        }
        if (original.stream().noneMatch(p -> p.ask().needsCards())) {
            return pods; // nothing to inflate: clones of CPU-only pods never bring the GPU asked closer
        }
        for (int clone = 0; ; clone++) {
            TracePod drawn = original.get(random.nextInt(original.size()));
            // The paper's simulator checks the clone's per-card share, not its total, against the target.
            if (asked + drawn.ask().milliPerCard() > target) {
                return pods;
            }
            pods.add(drawn.renamed(drawn.name() + "-tuned-" + clone));
            asked += drawn.ask().totalMilli();
        }
    }

    /** Fisher-Yates, from the last element down. */
    static <T> void shuffle(List<T> list, RandomGenerator random) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            list.set(i, list.set(j, list.get(i)));
        }
    }
}
