package io.elasticgpu.scheduler.decision;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.cache.NodeHolders.Resident;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sets of pods {@link Preemption} weighs on one node, smallest first, each judged once by the filter's fit check
 * on the node's state without them, and the cost that ranks the sets that fit. One search per question; not
 * thread-safe.
 */
final class VictimSearch {

    /** A pod that may be evicted, with its place in the least-important-first order ({@code rank}). */
    record Candidate(Resident resident, int priority, long startMillis, boolean spared, long cards, int rank) {}

    /** How good a set is: lower is better, field by field (see the class comment). */
    private record Cost(int violations, int maxPriority, int size, long sumPriority, int link, int rankSum, long mask)
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

    private final Preemption.Question q;
    private final NodeState base;
    private final Policy current;
    private final List<Resident> kept;
    private int judged;

    VictimSearch(Preemption.Question q, NodeState base, Policy current, List<Resident> kept) {
        this.q = q;
        this.base = base;
        this.current = current;
        this.kept = kept;
    }

    /**
     * The best of the smallest sets of {@code pool} after which the preemptor fits (evicting all of the pool
     * does); kube-scheduler's way when the budget runs out first.
     */
    List<Candidate> smallest(List<Candidate> pool) {
        int cards = base.cardCount();
        int k = Math.min(cards, q.requests().stream().mapToInt(Ask::cards).sum());
        List<Long> cardSets = k <= 0 || cards > 62 || binomial(cards, k) > Preemption.MAX_CARD_SETS
                ? List.of(-1L)
                : cardSets(cards, k);
        Set<Long> seen = new HashSet<>();
        for (int size = 1; size <= pool.size(); size++) {
            Cost best = null;
            for (long cardSet : cardSets) {
                List<Integer> touching = new ArrayList<>();
                for (int i = 0; i < pool.size(); i++) {
                    if ((pool.get(i).cards() & cardSet) != 0) {
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
                    if (++judged > Preemption.BUDGET) {
                        return best != null ? members(pool, best.mask()) : reprieved(pool);
                    }
                    Cost cost = cost(pool, mask);
                    if (cost != null && (best == null || cost.compareTo(best) < 0)) {
                        best = cost;
                    }
                } while (next(pick, touching.size()));
            }
            if (best != null) {
                return members(pool, best.mask());
            }
        }
        return reprieved(pool); // what frees the node's host resources rather than a card set
    }

    /** The set's cost, or null when the preemptor does not fit after it. */
    private Cost cost(List<Candidate> pool, long mask) {
        NodeState after = without(base, pool, mask);
        if (!fits(q.requests(), after, current)) {
            return null;
        }
        List<Candidate> set = members(pool, mask);
        List<Resident> victims = new ArrayList<>();
        set.stream()
                .sorted(Comparator.comparingInt(Candidate::rank).reversed())
                .forEach(c -> victims.add(c.resident()));
        victims.addAll(kept);
        int maxPriority = Integer.MIN_VALUE;
        long sum = 0;
        int rankSum = 0;
        for (Candidate c : set) {
            maxPriority = Math.max(maxPriority, c.priority());
            sum += c.priority();
            rankSum += c.rank();
        }
        return new Cost(
                q.budgets().violations(pods(victims)),
                maxPriority,
                set.size(),
                sum,
                link(q.requests(), after, current),
                rankSum,
                mask);
    }

    /** kube-scheduler's way on the card view: all of the pool evicted, the most important reprieved first. */
    private List<Candidate> reprieved(List<Candidate> pool) {
        long mask = all(pool.size());
        List<Integer> order = new ArrayList<>();
        for (int i = pool.size() - 1; i >= 0; i--) {
            if (!pool.get(i).spared()) {
                order.add(i);
            }
        }
        for (int i = pool.size() - 1; i >= 0; i--) {
            if (pool.get(i).spared()) {
                order.add(i);
            }
        }
        for (int i : order) {
            long back = mask & ~(1L << i);
            if (fits(q.requests(), without(base, pool, back), current)) {
                mask = back;
            }
        }
        return members(pool, mask);
    }

    static boolean fits(List<Ask> requests, NodeState state, Policy policy) {
        return PodFit.reason(requests, state, policy) == Reason.FITS;
    }

    /** The weakest link among the cards the policy would give the preemptor on {@code state}; 0 for one card. */
    private static int link(List<Ask> requests, NodeState state, Policy policy) {
        if (requests.stream().mapToInt(Ask::cards).sum() < 2) {
            return 0;
        }
        if (!(PodFit.of(requests, state, policy) instanceof PodFit.Fits fits)) {
            return 0;
        }
        int[] cards = fits.placements().stream()
                .flatMap(g -> g.shares().stream())
                .mapToInt(CardShare::card)
                .distinct()
                .toArray();
        return Decisions.weakestLink(cards, state.node().topology());
    }

    static NodeState without(NodeState state, List<Candidate> pool, long mask) {
        NodeState out = state;
        for (int i = 0; i < pool.size(); i++) {
            if ((mask & (1L << i)) != 0) {
                out = out.without(pool.get(i).resident().holding().placements());
            }
        }
        return out;
    }

    private static List<Candidate> members(List<Candidate> pool, long mask) {
        List<Candidate> out = new ArrayList<>();
        for (int i = 0; i < pool.size(); i++) {
            if ((mask & (1L << i)) != 0) {
                out.add(pool.get(i));
            }
        }
        return out;
    }

    static List<Pod> pods(List<Resident> residents) {
        return residents.stream()
                .map(Resident::pod)
                .filter(java.util.Objects::nonNull)
                .toList();
    }

    static long all(int n) {
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
        } while (next(pick, n));
        return out;
    }

    /** The next combination of {@code pick.length} of {@code 0..n-1} in lexicographic order; false after the last. */
    private static boolean next(int[] pick, int n) {
        int k = pick.length;
        int i = k - 1;
        while (i >= 0 && pick[i] == n - k + i) {
            i--;
        }
        if (i < 0) {
            return false;
        }
        pick[i]++;
        for (int j = i + 1; j < k; j++) {
            pick[j] = pick[j - 1] + 1;
        }
        return true;
    }

    private static long binomial(int n, int k) {
        long r = 1;
        for (int i = 1; i <= k; i++) {
            r = r * (n - k + i) / i;
        }
        return r;
    }
}
