package io.elasticgpu.simulator.preemption;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.placement.Decision;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.core.snapshot.Evictions;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * A replay with preemption: pods arrive one at a time, each goes where the policy says; a pod that fits nowhere
 * evicts pods of lower priority as kube-scheduler's default preemption would, and is placed again. kube-scheduler's
 * dry run decides which nodes are candidates: on each node, in order, until {@value #CANDIDATES} are found, it takes
 * out every pod of lower priority and, if the pod then fits the node's totals, puts back the most important first
 * (highest priority, then earliest arrival) while it still fits; a node where that leaves no victim is no candidate.
 * The totals are kube-scheduler's view of our resources: {@code elasticgpu.io/gpu} (whole cards, taken only by
 * whole-card pods), {@code elasticgpu.io/gpu-core} (a card's compute, taken only by shares), CPU and memory.
 *
 * <p>{@link Victims#TOTALS}: kube-scheduler's victims are evicted as they are. {@link Victims#CARDS}: the extender's
 * preempt verb answers for each candidate with core's {@link Evictions} (the fit check placement uses), dropping the
 * nodes where no set serves. Either way kube-scheduler then picks the candidate whose highest victim priority, then
 * sum of priorities, then number of victims is lowest (the first in node order on a tie), evicts there, and the pod
 * is placed again by the policy; if it still fits nowhere, the next round preempts again, up to {@value #ROUNDS}
 * rounds. Evicted pods leave (arrival only, as the simulator's replay). Not thread-safe.
 */
public final class PreemptingReplay {

    /** Candidates kube-scheduler's dry run looks for at most (its minimum, {@code minCandidateNodesAbsolute}). */
    static final int CANDIDATES = 100;

    /** Preemption rounds for one pod at most. */
    static final int ROUNDS = 10;

    /** Whose victims are evicted. */
    public enum Victims {
        /** kube-scheduler's own, chosen by the node's totals. */
        TOTALS,
        /** the extender's preempt verb's: the fewest of the lowest priority that free a card (or the cards asked). */
        CARDS
    }

    /** What a replay came to. */
    public record Result(
            Victims victims,
            int arrived,
            int preemptors,
            int placedByPreemption,
            int evicted,
            int evictedForNothing,
            int rounds,
            double gpuAllocatedPercent,
            long placedMilliByPriority3) {

        /** Pods evicted per pod of higher priority placed through preemption. */
        public double evictedPerPlaced() {
            return placedByPreemption == 0 ? 0 : (double) evicted / placedByPreemption;
        }
    }

    /** A pod holding cards on a node: its placement, priority and arrival. */
    private record Resident(Grant grant, int priority, int arrival) {}

    private final ClusterState cluster;
    private final Placer placer;
    private final Victims mode;
    private final List<List<Resident>> residents = new ArrayList<>();

    /**
     * @param nodes  the cluster in priority order
     * @param policy where pods go
     */
    public PreemptingReplay(List<Node> nodes, Policy policy, Victims mode) {
        this.cluster = new ClusterState(nodes);
        this.placer = new Placer(policy);
        this.mode = mode;
        for (int i = 0; i < cluster.size(); i++) {
            residents.add(new ArrayList<>());
        }
    }

    /** Replays {@code arrivals}, each with the priority {@code priority} gives it. */
    public Result run(List<TracePod> arrivals, ToIntFunction<String> priority) {
        int preemptors = 0;
        int placed = 0;
        int evicted = 0;
        int wasted = 0;
        int rounds = 0;
        long top = 0;
        for (int a = 0; a < arrivals.size(); a++) {
            TracePod pod = arrivals.get(a);
            int p = priority.applyAsInt(pod.name());
            Grant grant = place(pod.ask());
            if (grant == null) {
                int evictedForIt = 0;
                boolean tried = false;
                for (int round = 0; round < ROUNDS && grant == null; round++) {
                    int n = preempt(pod.ask(), p);
                    if (n == 0) {
                        break;
                    }
                    tried = true;
                    rounds++;
                    evictedForIt += n;
                    grant = place(pod.ask());
                }
                if (tried) {
                    preemptors++;
                    evicted += evictedForIt;
                    if (grant != null) {
                        placed++;
                    } else {
                        wasted += evictedForIt;
                    }
                }
            }
            if (grant != null) {
                cluster.assume(grant);
                residents.get(cluster.indexOf(grant.node())).add(new Resident(grant, p, a));
                if (p == 3) {
                    top += grant.ask().totalMilli();
                }
            }
        }
        double allocated = 100.0 * cluster.usedMilli() / cluster.capacityMilli();
        return new Result(mode, arrivals.size(), preemptors, placed, evicted, wasted, rounds, allocated, top);
    }

    private Grant place(Ask ask) {
        return placer.place(ask, cluster) instanceof Decision.Placed placed ? placed.placement() : null;
    }

    /** One preemption round for a pod of priority {@code p}: the victims evicted, 0 when none. */
    private int preempt(Ask ask, int p) {
        int best = -1;
        List<Resident> bestVictims = null;
        int found = 0;
        for (int i = 0; i < cluster.size() && found < CANDIDATES; i++) {
            List<Resident> lower = residents.get(i).stream()
                    .filter(r -> r.priority() < p)
                    .sorted(Comparator.comparingInt(Resident::priority)
                            .thenComparing(
                                    Comparator.comparingInt(Resident::arrival).reversed()))
                    .toList(); // least important first
            if (lower.isEmpty()) {
                continue;
            }
            List<Resident> totals = byTotals(cluster.node(i), residents.get(i), lower, ask);
            if (totals.isEmpty()) {
                continue;
            }
            found++;
            List<Resident> victims = mode == Victims.TOTALS ? totals : byCards(cluster.node(i), lower, ask);
            if (victims.isEmpty()) {
                continue; // the extender drops the node
            }
            if (bestVictims == null || better(victims, bestVictims)) {
                best = i;
                bestVictims = victims;
            }
        }
        if (bestVictims == null) {
            return 0;
        }
        for (Resident r : bestVictims) {
            cluster.forget(r.grant());
            residents.get(best).remove(r);
        }
        return bestVictims.size();
    }

    /** kube-scheduler's order of candidates: lowest highest priority, lowest sum, fewest. */
    private static boolean better(List<Resident> a, List<Resident> b) {
        Comparator<List<Resident>> order = Comparator.<List<Resident>>comparingInt(
                        v -> v.stream().mapToInt(Resident::priority).max().orElse(0))
                .thenComparingLong(v -> v.stream().mapToLong(Resident::priority).sum())
                .thenComparingInt(List::size);
        return order.compare(a, b) < 0;
    }

    /** kube-scheduler's dry run on the node's totals: empty when no victim is needed or none would do. */
    private static List<Resident> byTotals(NodeState node, List<Resident> all, List<Resident> lower, Ask ask) {
        List<Resident> out = new ArrayList<>(lower);
        if (!fitsTotals(node, all, out, ask)) {
            return List.of();
        }
        for (int i = lower.size() - 1; i >= 0; i--) { // the most important first
            Resident r = lower.get(i);
            out.remove(r);
            if (!fitsTotals(node, all, out, ask)) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Whether {@code ask} fits the node's totals with {@code gone} taken out: whole cards less those whole-card pods
     * hold, the cards' compute less what shares hold (each counted apart, as kube-scheduler counts two resources).
     */
    private static boolean fitsTotals(NodeState node, List<Resident> all, List<Resident> gone, Ask ask) {
        long wholeFree = node.cardCount();
        long coreFree = (long) Card.WHOLE * node.cardCount();
        for (Resident r : all) {
            if (gone.contains(r)) {
                continue;
            }
            for (CardShare s : r.grant().shares()) {
                if (r.grant().ask().wholeCards()) {
                    wholeFree--;
                } else {
                    coreFree -= s.milli();
                }
            }
        }
        long cpu = node.freeCpu();
        long memory = node.freeMemory();
        for (Resident r : gone) {
            cpu += r.grant().ask().cpuMilli();
            memory += r.grant().ask().memoryMib();
        }
        boolean gpu = !ask.needsCards()
                || (ask.wholeCards() ? wholeFree >= ask.cards() : coreFree >= (long) ask.milliPerCard() * ask.cards());
        return gpu && cpu >= ask.cpuMilli() && memory >= ask.memoryMib();
    }

    /** The extender's answer: core's victim choice on the card view, by placement's own fit check. */
    private List<Resident> byCards(NodeState node, List<Resident> lower, Ask ask) {
        List<Evictions.Evictable<Resident>> pool = lower.stream()
                .map(r -> new Evictions.Evictable<>(r, List.of(r.grant()), r.priority(), true))
                .toList();
        Policy policy = placer.policy();
        return Evictions.choose(node, pool, ask.cards(), new Evictions.Judge<>() {
                    @Override
                    public boolean fits(NodeState state) {
                        return state.check(ask) == Reason.FITS;
                    }

                    @Override
                    public int link(NodeState state) {
                        return ask.cards() < 2
                                ? 0
                                : state.node()
                                        .topology()
                                        .weakestRank(policy.choose(ask, state).cards());
                    }

                    @Override
                    public int violations(List<Resident> victims) {
                        return 0; // the trace has no disruption budgets
                    }
                })
                .orElse(List.of());
    }
}
