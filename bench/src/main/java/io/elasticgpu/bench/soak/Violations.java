package io.elasticgpu.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Broken invariants by name, with the first few examples of each, timed from the start of the soak. */
final class Violations {

    private static final int EXAMPLES = 5;

    private final long start = System.nanoTime();
    private final Map<String, Integer> counts = new TreeMap<>();
    private final List<String> examples = new ArrayList<>();

    synchronized void add(String invariant, String detail) {
        int n = counts.merge(invariant, 1, Integer::sum);
        if (n <= EXAMPLES) {
            examples.add("%.0f s %s: %s".formatted((System.nanoTime() - start) / 1e9, invariant, detail));
        }
    }

    synchronized Map<String, Integer> counts() {
        return new TreeMap<>(counts);
    }

    synchronized List<String> examples() {
        return List.copyOf(examples);
    }

    synchronized int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }
}
