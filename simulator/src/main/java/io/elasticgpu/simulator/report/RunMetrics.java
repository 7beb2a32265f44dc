package io.elasticgpu.simulator.report;

import io.elasticgpu.simulator.replay.EventLog;
import java.util.Optional;

/**
 * The protocol's metrics of one replay (PROTOCOL.md, "Metrics"). An event's arrival level is
 * {@code round_half_even(100 * arrived / capacity)}; a level's value is the mean over the events at that level, or,
 * where none landed there, over the events at the levels on either side.
 *
 * @param allocation    percent of GPU capacity held, by arrival level 0..{@code allocation.length - 1}; NaN where
 *                      no event landed nearby
 * @param fragAmount    percent of GPU capacity that is fragmented, by level
 * @param fragRatio     percent of idle GPU capacity that is fragmented, by level
 * @param firstFailure  the arrival and the unallocated GPUs at the first pod that fit nowhere
 */
public record RunMetrics(
        double[] allocation, double[] fragAmount, double[] fragRatio, Optional<FirstFailure> firstFailure) {

    /** @param arrivedPct percent of capacity asked so far; @param unallocatedGpus cards' worth of capacity not held */
    public record FirstFailure(double arrivedPct, double unallocatedGpus) {}

    public static RunMetrics of(EventLog log) {
        double capacity = log.capacityMilli();
        int levels = 1;
        for (int i = 0; i < log.size(); i++) {
            levels = Math.max(levels, level(log.arrived(i), capacity) + 1);
        }
        double[] used = new double[levels];
        double[] amount = new double[levels];
        double[] ratio = new double[levels];
        int[] count = new int[levels];
        Optional<FirstFailure> first = Optional.empty();
        for (int i = 0; i < log.size(); i++) {
            int level = level(log.arrived(i), capacity);
            double idle = capacity - log.used(i);
            used[level] += 100 * log.used(i) / capacity;
            amount[level] += 100 * log.fragmentation(i) / capacity;
            ratio[level] += idle == 0 ? 0 : 100 * log.fragmentation(i) / idle;
            count[level]++;
            if (first.isEmpty() && log.failed(i)) {
                first = Optional.of(new FirstFailure(100 * log.arrived(i) / capacity, idle / 1000));
            }
        }
        return new RunMetrics(means(used, count), means(amount, count), means(ratio, count), first);
    }

    /** The arrival level of an event: {@code round_half_even(100 * arrived / capacity)}. */
    public static int level(long arrived, double capacity) {
        return (int) Math.rint(100 * arrived / capacity);
    }

    private static double[] means(double[] sums, int[] count) {
        double[] out = new double[sums.length];
        for (int level = 0; level < sums.length; level++) {
            double sum = 0;
            int n = 0;
            for (int l = level - 1; l <= level + 1; l++) {
                if (l >= 0 && l < sums.length && (l == level || count[level] == 0)) {
                    sum += sums[l];
                    n += count[l];
                }
            }
            out[level] = n == 0 ? Double.NaN : sum / n;
        }
        return out;
    }

    /** The value at {@code level}, NaN beyond the last level reached. */
    public static double at(double[] byLevel, int level) {
        return level < byLevel.length ? byLevel[level] : Double.NaN;
    }

    public double allocationAt(int level) {
        return at(allocation, level);
    }
}
