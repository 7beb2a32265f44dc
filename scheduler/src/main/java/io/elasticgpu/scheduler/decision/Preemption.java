package io.elasticgpu.scheduler.decision;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.elasticgpu.scheduler.cache.NodeHolders;
import io.elasticgpu.scheduler.cache.NodeHolders.Resident;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Which pods to evict from one node so that a pod of higher priority fits there: judged by the fit check the filter
 * applies ({@link PodFit#reason}, the policy choosing the cards) on the node's state with the victims' holdings taken
 * out, so a set is chosen only when the preemptor then fits on one card, or on the cards it asks.
 *
 * <p>The pods weighed are those kube-scheduler may evict there: every pod bound to the node whose priority is below
 * the preemptor's (kube-scheduler's own rule) and that holds a share of a card, and every pod kube-scheduler
 * proposed. kube-scheduler proposes the fewest pods that free the node's <em>totals</em> of our resources, which may
 * sit on different cards and free no card whole; so the set is chosen among all of them, not only among its
 * proposal. Pods it proposed that hold no card are kept as victims as proposed: they free what its own view of the
 * node lacks (CPU, memory, ports), which is not ours to judge.
 *
 * <p>Among the sets that fit, the best has, in this order: the fewest pods evicted against a PodDisruptionBudget
 * (sets that spare every budget-protected pod are looked for first, as kube-scheduler's preemption reprieves them
 * first); the lowest highest priority (never a pod of higher priority where pods of lower priority alone would do);
 * the fewest pods; the lowest sum of priorities; for a pod that takes several cards, the best-linked cards (the
 * weakest link among the cards the policy would give it, NVLink first, as placement ranks them); the least important
 * pods (latest started, as kube-scheduler's {@code MoreImportantPod} has it); the lowest uids. Sets are judged by
 * size, each on the cards it could free for the preemptor; past {@value #BUDGET} sets judged on one node, the set
 * found so far stands, or kube-scheduler's own way is taken (evict all, then reprieve the most important first while
 * the preemptor still fits). Pure: no I/O, no clock. Thread-safe.
 */
public final class Preemption {

    /** Candidate sets judged on one node at most. */
    static final int BUDGET = 20_000;

    /** Pods weighed on one node at most, the least important first (a set is a bit mask over them). */
    static final int MAX_CANDIDATES = 62;

    /** Card sets a preemptor might take, enumerated at most; past it every set is judged on the whole node. */
    static final int MAX_CARD_SETS = 2_000;

    /** What the preemption of one node comes to. */
    public sealed interface Chosen {

        /**
         * Evict these pods (uids, the most important first, as kube-scheduler lists victims).
         *
         * @param pdbViolations how many of them are evicted against a PodDisruptionBudget
         */
        record Evict(List<String> victims, int pdbViolations) implements Chosen {
            public Evict {
                victims = List.copyOf(victims);
            }
        }

        /**
         * The preemptor fits the node's cards without evicting any pod that holds one: the node lacks something only
         * kube-scheduler's view sees, and the victims it proposed stand.
         */
        record AsProposed() implements Chosen {}

        /** No set of pods that may be evicted frees what the preemptor asks; the node is dropped. */
        record NoSet(String reason) implements Chosen {}
    }

    /**
     * One node's question.
     *
     * @param requests     the preemptor's asks, as the filter judges them ({@link PodAsk#requests})
     * @param preemptorUid the preemptor's uid (never its own victim)
     * @param priority     the preemptor's priority
     * @param node         the node and what each pod there holds
     * @param proposed     the uids kube-scheduler proposed as victims on the node
     * @param budgets      the disruption budgets
     */
    public record Question(
            List<Ask> requests,
            String preemptorUid,
            int priority,
            NodeHolders node,
            Set<String> proposed,
            DisruptionBudgets budgets) {
        public Question {
            requests = List.copyOf(requests);
            proposed = Set.copyOf(proposed);
        }
    }

    private final Supplier<Policy> policy;

    /** @param policy the policy the filter places with (it chooses the cards a multi-card preemptor would get) */
    public Preemption(Supplier<Policy> policy) {
        this.policy = policy;
    }

    /** The victims on one node, or why there are none. */
    public Chosen choose(Question q) {
        Policy current = policy.get();
        List<Resident> kept = q.node().residents().stream()
                .filter(r -> q.proposed().contains(r.uid()) && !r.holdsCards())
                .sorted(Comparator.comparing(Resident::uid))
                .toList();
        NodeState base = q.node().state();
        for (Resident r : kept) {
            base = base.without(r.holding().placements());
        }
        if (VictimSearch.fits(q.requests(), base, current)) {
            return kept.isEmpty()
                    ? new Chosen.AsProposed()
                    : new Chosen.Evict(
                            kept.stream().map(Resident::uid).toList(),
                            q.budgets().violations(VictimSearch.pods(kept)));
        }
        List<VictimSearch.Candidate> pool = candidates(q);
        if (pool.isEmpty()) {
            return new Chosen.NoSet("no pod of lower priority holds a card here");
        }
        if (!VictimSearch.fits(
                q.requests(), VictimSearch.without(base, pool, VictimSearch.all(pool.size())), current)) {
            return new Chosen.NoSet("evicting every pod of lower priority here would still not free what it asks");
        }
        VictimSearch search = new VictimSearch(q, base, current, kept);
        for (boolean spare : new boolean[] {true, false}) {
            List<VictimSearch.Candidate> phase =
                    spare ? pool.stream().filter(VictimSearch.Candidate::spared).toList() : pool;
            if (spare && phase.size() == pool.size()) {
                continue; // no pod is protected: the second phase is the same search
            }
            TreeSet<Integer> priorities = new TreeSet<>();
            phase.forEach(c -> priorities.add(c.priority()));
            for (int threshold : priorities) {
                List<VictimSearch.Candidate> below =
                        phase.stream().filter(c -> c.priority() <= threshold).toList();
                if (!VictimSearch.fits(
                        q.requests(), VictimSearch.without(base, below, VictimSearch.all(below.size())), current)) {
                    continue;
                }
                List<VictimSearch.Candidate> chosen = search.smallest(below);
                List<Resident> victims = new ArrayList<>();
                chosen.stream()
                        .sorted(Comparator.comparingInt(VictimSearch.Candidate::rank)
                                .reversed())
                        .forEach(c -> victims.add(c.resident()));
                victims.addAll(kept);
                return new Chosen.Evict(
                        victims.stream().map(Resident::uid).toList(),
                        q.budgets().violations(VictimSearch.pods(victims)));
            }
        }
        return new Chosen.NoSet("no set of pods of lower priority frees what it asks"); // not reached: all fit
    }

    /**
     * The pods that may be evicted, the least important first (lowest priority, then latest started, then uid), at
     * most {@value #MAX_CANDIDATES}.
     */
    private static List<VictimSearch.Candidate> candidates(Question q) {
        List<Resident> eligible = q.node().residents().stream()
                .filter(r -> r.holdsCards()
                        && !r.held()
                        && !r.uid().equals(q.preemptorUid())
                        && (q.proposed().contains(r.uid()) || r.pod() != null && r.priority() < q.priority()))
                .sorted(Comparator.comparingInt(Resident::priority)
                        .thenComparing(Comparator.comparingLong(Preemption::startMillis)
                                .reversed())
                        .thenComparing(Resident::uid))
                .limit(MAX_CANDIDATES)
                .toList();
        List<VictimSearch.Candidate> out = new ArrayList<>();
        for (int i = 0; i < eligible.size(); i++) {
            Resident r = eligible.get(i);
            boolean spared = r.pod() == null || !q.budgets().protects(r.pod());
            out.add(new VictimSearch.Candidate(r, r.priority(), startMillis(r), spared, cards(r), i));
        }
        return out;
    }

    /** When a pod started, as kube-scheduler reads it: {@code status.startTime}, else now (the latest). */
    private static long startMillis(Resident r) {
        Pod p = r.pod();
        String start = p == null || p.getStatus() == null ? null : p.getStatus().getStartTime();
        if (start == null) {
            return Long.MAX_VALUE;
        }
        try {
            return Instant.parse(start).toEpochMilli();
        } catch (DateTimeParseException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The cards a pod holds a share of, as a bit mask (cards past the 63rd share one bit). */
    private static long cards(Resident r) {
        long mask = 0;
        for (Grant g : r.holding().placements()) {
            for (CardShare s : g.shares()) {
                mask |= 1L << Math.min(s.card(), 62);
            }
        }
        return mask;
    }
}
