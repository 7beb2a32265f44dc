package io.elasticgpu.scheduler.decision;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.Evictions;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.elasticgpu.scheduler.cache.NodeHolders;
import io.elasticgpu.scheduler.cache.NodeHolders.Resident;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
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
 * <p>The set is chosen by core's {@link Evictions}, the one rule of victim choice (the simulator uses it too): the
 * fewest pods evicted against a PodDisruptionBudget (as kube-scheduler counts them: {@link DisruptionBudgets}), then
 * the lowest highest priority, the fewest pods, the lowest sum of priorities, for a pod of several cards the
 * best-linked cards the policy would give it (NVLink first, as placement ranks them), the least important pods
 * (lowest priority, then latest started, as kube-scheduler's {@code MoreImportantPod} has it, then uid). Pure: no I/O,
 * no clock. Thread-safe.
 */
public final class Preemption {

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
     * @param asks         the preemptor's asks, as the filter judges them ({@link PodAsk#asks})
     * @param preemptorUid the preemptor's uid (never its own victim)
     * @param priority     the preemptor's priority
     * @param node         the node and what each pod there holds
     * @param proposed     the uids kube-scheduler proposed as victims on the node
     * @param budgets      the disruption budgets
     */
    public record Question(
            List<Ask> asks,
            String preemptorUid,
            int priority,
            NodeHolders node,
            Set<String> proposed,
            DisruptionBudgets budgets) {
        public Question {
            asks = List.copyOf(asks);
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
        if (fits(q.asks(), base, current)) {
            return kept.isEmpty()
                    ? new Chosen.AsProposed()
                    : new Chosen.Evict(
                            kept.stream().map(Resident::uid).toList(),
                            q.budgets().violations(pods(kept)));
        }
        List<Evictions.Evictable<Resident>> pool = candidates(q);
        if (pool.isEmpty()) {
            return new Chosen.NoSet("no pod of lower priority holds a card here");
        }
        Evictions.Judge<Resident> judge = new Evictions.Judge<>() {
            @Override
            public boolean fits(NodeState state) {
                return Preemption.fits(q.asks(), state, current);
            }

            @Override
            public int link(NodeState state) {
                return Preemption.link(q.asks(), state, current);
            }

            @Override
            public int violations(List<Resident> victims) {
                List<Resident> all = new ArrayList<>(victims);
                all.addAll(kept);
                return q.budgets().violations(pods(all));
            }
        };
        int cards = q.asks().stream().mapToInt(Ask::cards).sum();
        return Evictions.choose(base, pool, cards, judge)
                .<Chosen>map(chosen -> {
                    List<Resident> victims = new ArrayList<>(chosen);
                    victims.addAll(kept);
                    return new Chosen.Evict(victims.stream().map(Resident::uid).toList(), judge.violations(chosen));
                })
                .orElseGet(() -> new Chosen.NoSet(
                        "evicting every pod of lower priority here would still not free what it asks"));
    }

    /**
     * The pods that may be evicted, the least important first (lowest priority, then latest started, then uid), at
     * most {@value Evictions#MAX_CANDIDATES}.
     */
    private static List<Evictions.Evictable<Resident>> candidates(Question q) {
        return q.node().residents().stream()
                .filter(r -> r.holdsCards()
                        && !r.held()
                        && !r.uid().equals(q.preemptorUid())
                        && (q.proposed().contains(r.uid()) || r.pod() != null && r.priority() < q.priority()))
                .sorted(Comparator.comparingInt(Resident::priority)
                        .thenComparing(Comparator.comparingLong(Preemption::startMillis)
                                .reversed())
                        .thenComparing(Resident::uid))
                .limit(Evictions.MAX_CANDIDATES)
                .map(r -> new Evictions.Evictable<>(
                        r,
                        r.holding().placements(),
                        r.priority(),
                        r.pod() == null || !q.budgets().protects(r.pod())))
                .toList();
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

    private static boolean fits(List<Ask> asks, NodeState state, Policy policy) {
        return PodFit.reason(asks, state, policy) == Reason.FITS;
    }

    /** The weakest link among the cards the policy would give the preemptor on {@code state}; 0 for one card. */
    private static int link(List<Ask> asks, NodeState state, Policy policy) {
        if (asks.stream().mapToInt(Ask::cards).sum() < 2) {
            return 0;
        }
        if (!(PodFit.of(asks, state, policy) instanceof PodFit.Fits fits)) {
            return 0;
        }
        int[] cards = fits.placements().stream()
                .flatMap(g -> g.shares().stream())
                .mapToInt(CardShare::card)
                .distinct()
                .toArray();
        return state.node().topology().weakestRank(cards);
    }

    private static List<Pod> pods(List<Resident> residents) {
        return residents.stream().map(Resident::pod).filter(Objects::nonNull).toList();
    }
}
