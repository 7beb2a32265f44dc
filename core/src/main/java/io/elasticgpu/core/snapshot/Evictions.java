package io.elasticgpu.core.snapshot;

import io.elasticgpu.core.model.CardSets;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which pods to evict from one node so that a pod of higher priority fits there: the one rule of victim choice, used
 * by the extender's preempt verb and by the simulator's preemption. Whether the preemptor fits is the caller's fit
 * check on the node's state with the victims' holdings taken out, so a set counts only when it frees what the
 * preemptor asks (one card with its share, or the cards it asks).
 *
 * <p>Among the sets that fit, the best has, in this order: the fewest pods evicted against a disruption budget (sets
 * that spare every pod whose eviction alone breaks one are looked for first); the lowest highest priority (never a
 * pod of higher priority where pods of lower priority alone would do); the fewest pods; the lowest sum of priorities;
 * the best-linked cards for the preemptor (the caller's {@link Judge#link}); the least important pods (by their place
 * in the pool); the lowest places. Sets are judged by size, each on the cards it could free (the pods touching each
 * set of as many cards as the preemptor takes); past {@value #BUDGET} sets judged, the best found so far stands, or
 * kube-scheduler's own way is taken (evict all, then put back the most important first while the preemptor still
 * fits). Pure. Thread-safe.
 */
public final class Evictions {

    /** Candidate sets judged on one node at most. */
    public static final int BUDGET = 20_000;

    /** Pods weighed on one node at most, the least important first (a set is a bit mask over them). */
    public static final int MAX_CANDIDATES = 62;

    /** Card sets a preemptor might take, enumerated at most; past it every set is judged on the whole node. */
    static final int MAX_CARD_SETS = 2_000;

    private Evictions() {}

    /**
     * A pod that may be evicted.
     *
     * @param id       the caller's name for it
     * @param holds    what it holds on the node, as counted in the node's state
     * @param priority its priority
     * @param spared   whether evicting it alone breaks no disruption budget
     */
    public record Evictable<T>(T id, List<Grant> holds, int priority, boolean spared) {
        public Evictable {
            holds = List.copyOf(holds);
        }
    }

    /** What the caller judges a set by. */
    public interface Judge<T> {
        /** Whether the preemptor fits {@code state}: the caller's fit check, the one placement uses. */
        boolean fits(NodeState state);

        /** How well-linked the cards the preemptor would get on {@code state} are; higher is better. */
        int link(NodeState state);

        /** How many of {@code victims} (the most important first) are evicted against a disruption budget. */
        int violations(List<T> victims);
    }

    /**
     * The victims on {@code base}, the most important first; empty when evicting every pod of {@code pool} would not
     * let the preemptor fit either (the preemptor does not fit {@code base}).
     *
     * @param pool  the pods that may be evicted, the least important first; past {@value #MAX_CANDIDATES} the rest
     *              are not weighed
     * @param cards how many cards the preemptor takes (0: none)
     */
    public static <T> Optional<List<T>> choose(NodeState base, List<Evictable<T>> pool, int cards, Judge<T> judge) {
        List<Evictable<T>> weighed = pool.size() > MAX_CANDIDATES ? pool.subList(0, MAX_CANDIDATES) : pool;
        if (weighed.isEmpty() || !judge.fits(without(base, weighed, all(weighed.size())))) {
            return Optional.empty();
        }
        Search<T> search = new Search<>(base, Math.min(base.cardCount(), cards), judge);
        for (boolean spare : new boolean[] {true, false}) {
            List<Evictable<T>> phase =
                    spare ? weighed.stream().filter(Evictable::spared).toList() : weighed;
            if (spare && phase.size() == weighed.size()) {
                continue; // none is protected: the second phase is the same search
            }
            TreeSet<Integer> priorities = new TreeSet<>();
            phase.forEach(c -> priorities.add(c.priority()));
            for (int threshold : priorities) {
                List<Evictable<T>> below =
                        phase.stream().filter(c -> c.priority() <= threshold).toList();
                if (judge.fits(without(base, below, all(below.size())))) {
                    return Optional.of(ids(search.smallest(below)));
                }
            }
        }
        return Optional.empty(); // not reached: evicting the whole pool fits
    }

    /** The sets of one pool, smallest first, each judged once. Not thread-safe: one per {@link #choose}. */
    private static final class Search<T> {

        /** How good a set is: lower is better, field by field (see the class comment). */
        private record Cost(
                int violations, int maxPriority, int size, long sumPriority, int link, int rankSum, long mask)
                implements Comparable<Cost> {
            private static final Comparator<Cost> ORDER = Comparator.comparingInt(Cost::violations)
                    .thenComparingInt(Cost::maxPriority)
                    .thenComparingInt(Cost::size)
                    .thenComparingLong(Cost::sumPriority)
                    .thenComparing(Comparator.comparingInt(Cost::link).reversed())
                    .thenComparingInt(Cost::rankSum)
                    .thenComparingLong(Cost::mask);

            @Override
            public int compareTo(Cost o) {
                return ORDER.compare(this, o);
            }
        }

        private final NodeState base;
        private final int cards;
        private final Judge<T> judge;
        private final Set<Long> seen = new HashSet<>();
        private int judged;

        Search(NodeState base, int cards, Judge<T> judge) {
            this.base = base;
            this.cards = cards;
            this.judge = judge;
        }

        /**
         * The best of the smallest sets of {@code pool} after which the preemptor fits (evicting all of the pool
         * does); kube-scheduler's way when the budget runs out first. The pool's order is kept: a set's members
         * are in it least important first.
         */
        List<Evictable<T>> smallest(List<Evictable<T>> pool) {
            int n = base.cardCount();
            List<Long> cardSets = cards <= 0 || n > 62 || CardSets.count(n, cards) > MAX_CARD_SETS
                    ? List.of(-1L)
                    : cardSets(n, cards);
            long[] touches = new long[pool.size()];
            for (int i = 0; i < pool.size(); i++) {
                touches[i] = cards(pool.get(i));
            }
            for (int size = 1; size <= pool.size(); size++) {
                Cost best = null;
                for (long cardSet : cardSets) {
                    List<Integer> touching = new ArrayList<>();
                    for (int i = 0; i < pool.size(); i++) {
                        if ((touches[i] & cardSet) != 0) {
                            touching.add(i);
                        }
                    }
                    if (touching.size() < size) {
                        continue;
                    }
                    int[] pick = new int[size];
                    for (int j = 0; j < size; j++) {
                        pick[j] = j;
                    }
                    do {
                        long mask = 0;
                        for (int j : pick) {
                            mask |= 1L << touching.get(j);
                        }
                        if (!seen.add(mask)) {
                            continue;
                        }
                        if (++judged > BUDGET) {
                            return best != null ? members(pool, best.mask()) : reprieved(pool);
                        }
                        Cost cost = cost(pool, mask);
                        if (cost != null && (best == null || cost.compareTo(best) < 0)) {
                            best = cost;
                        }
                    } while (CardSets.next(pick, touching.size()));
                }
                if (best != null) {
                    return members(pool, best.mask());
                }
            }
            return reprieved(pool); // what frees host resources rather than a card set
        }

        /** The set's cost, or null when the preemptor does not fit after it. */
        private Cost cost(List<Evictable<T>> pool, long mask) {
            NodeState after = without(base, pool, mask);
            if (!judge.fits(after)) {
                return null;
            }
            List<Evictable<T>> set = members(pool, mask);
            int maxPriority = Integer.MIN_VALUE;
            long sum = 0;
            int rankSum = 0;
            for (int i = 0; i < pool.size(); i++) {
                if ((mask & (1L << i)) != 0) {
                    maxPriority = Math.max(maxPriority, pool.get(i).priority());
                    sum += pool.get(i).priority();
                    rankSum += i;
                }
            }
            return new Cost(judge.violations(ids(set)), maxPriority, set.size(), sum, judge.link(after), rankSum, mask);
        }

        /** kube-scheduler's way: all of the pool evicted, the most important put back first, protected ones first. */
        private List<Evictable<T>> reprieved(List<Evictable<T>> pool) {
            long mask = all(pool.size());
            List<Integer> order = new ArrayList<>();
            for (boolean spared : new boolean[] {false, true}) {
                for (int i = pool.size() - 1; i >= 0; i--) {
                    if (pool.get(i).spared() == spared) {
                        order.add(i);
                    }
                }
            }
            for (int i : order) {
                long back = mask & ~(1L << i);
                if (judge.fits(without(base, pool, back))) {
                    mask = back;
                }
            }
            return members(pool, mask);
        }
    }

    /** The ids of {@code set} (least important first), the most important first. */
    private static <T> List<T> ids(List<Evictable<T>> set) {
        List<T> out = new ArrayList<>(set.size());
        for (int i = set.size() - 1; i >= 0; i--) {
            out.add(set.get(i).id());
        }
        return out;
    }

    /** The cards a pod holds a share of, as a bit mask (cards past the 63rd share one bit). */
    private static long cards(Evictable<?> e) {
        long mask = 0;
        for (Grant g : e.holds()) {
            for (CardShare s : g.shares()) {
                mask |= 1L << Math.min(s.card(), 62);
            }
        }
        return mask;
    }

    private static <T> NodeState without(NodeState state, List<Evictable<T>> pool, long mask) {
        NodeState out = state;
        for (int i = 0; i < pool.size(); i++) {
            if ((mask & (1L << i)) != 0) {
                out = out.without(pool.get(i).holds());
            }
        }
        return out;
    }

    private static <T> List<Evictable<T>> members(List<Evictable<T>> pool, long mask) {
        List<Evictable<T>> out = new ArrayList<>();
        for (int i = 0; i < pool.size(); i++) {
            if ((mask & (1L << i)) != 0) {
                out.add(pool.get(i));
            }
        }
        return out;
    }

    private static long all(int n) {
        return n >= 63 ? -1L >>> 1 : (1L << n) - 1;
    }

    /** Every set of {@code k} of {@code n} cards, as bit masks. */
    private static List<Long> cardSets(int n, int k) {
        List<Long> out = new ArrayList<>();
        int[] pick = new int[k];
        for (int j = 0; j < k; j++) {
            pick[j] = j;
        }
        do {
            long mask = 0;
            for (int j : pick) {
                mask |= 1L << j;
            }
            out.add(mask);
        } while (CardSets.next(pick, n));
        return out;
    }
}
