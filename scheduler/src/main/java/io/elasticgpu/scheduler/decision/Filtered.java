package io.elasticgpu.scheduler.decision;

import io.elasticgpu.scheduler.cache.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What {@link Decisions#filter} found: nodes that fit; nodes that may fit once something is freed; nodes that never
 * will; and how many nodes failed for each reason (lower-case {@link io.elasticgpu.core.snapshot.Reason} names, or
 * {@code no_inventory}). {@code entries} are the fitting nodes' states as the filter read them, in the order of
 * {@code fit}, so that a decision on them looks no node up again (at 1,000 nodes the lookups were about a quarter of
 * a filter's work).
 */
public record Filtered(
        List<String> fit,
        Map<String, String> failed,
        Map<String, String> unresolvable,
        Map<String, Integer> reasons,
        List<Snapshot.Entry> entries) {
    public Filtered {
        if (entries.size() != fit.size()) {
            throw new IllegalArgumentException("%d entries for %d fitting nodes".formatted(entries.size(), fit.size()));
        }
    }

    /**
     * These nodes with those that {@code out} names moved from fit to failed, each with {@code sentence}, counted
     * under {@code reason}; this when none is.
     */
    public Filtered without(Predicate<String> out, String sentence, String reason) {
        List<String> keptNames = new ArrayList<>(fit.size());
        List<Snapshot.Entry> keptEntries = new ArrayList<>(fit.size());
        Map<String, String> moreFailed = new LinkedHashMap<>(failed);
        Map<String, Integer> moreReasons = new LinkedHashMap<>(reasons);
        for (int i = 0; i < fit.size(); i++) {
            if (out.test(fit.get(i))) {
                moreFailed.put(fit.get(i), sentence);
                moreReasons.merge(reason, 1, Integer::sum);
            } else {
                keptNames.add(fit.get(i));
                keptEntries.add(entries.get(i));
            }
        }
        return keptNames.size() == fit.size()
                ? this
                : new Filtered(keptNames, moreFailed, unresolvable, moreReasons, keptEntries);
    }
}
