package io.elasticgpu.scheduler.decision;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Lookahead;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.cache.NodeLookup;
import io.elasticgpu.scheduler.cache.Snapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's answers for one pod, computed on immutable node states: which nodes fit and why the others do
 * not, and how good each fitting node is on the extender's 0..10 scale. Policy scores are kept with each node's
 * state in the cache, so they last exactly as long as it does. Thread-safe.
 */
public final class Decisions {

    /** The extender's best score (kube-scheduler's {@code MaxExtenderPriority}). */
    public static final int MAX_SCORE = 10;

    /**
     * How much the policy's ranking and the card links count in a node's score. Links count only for pods that take
     * several cards: the weakest link among the cards the pod would get there (NVLink lanes above any PCIe path).
     */
    public record Weights(double policy, double topology) {
        /** Links count twice the policy: an NVLinked set of cards beats the policy's preference for another node. */
        public static final Weights DEFAULT = new Weights(1, 2);
    }

    /** A filter's decision: the one node the pod goes to, and its cards there. */
    public record Decided(String node, PodFit.Fits assigned) {}

    private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);

    /** Distinct asks kept canonical; past this many the table starts over, which only costs recomputation. */
    static final int MAX_ASKS = 4096;

    private final Supplier<Policy> policy;
    private final Weights weights;
    private final Map<List<Ask>, Asked> asks = new ConcurrentHashMap<>();

    private final RolloutChoice rollouts = new RolloutChoice();
    private final NodeLookup lookup = new NodeLookup();

    /**
     * A fitting node's policy score, the weakest link among the cards the pod would get there and those cards (its
     * first container's).
     */
    private record Verdict(double score, int weakestLink, int[] cards) {}

    /**
     * Whether an ask fits one node state ({@link Reason#FITS}) and, when it does, the policy's verdict there; made for
     * the entry of that {@code version} by that policy.
     */
    private record Judged(long version, Policy policy, Reason reason, Verdict verdict) {}

    /**
     * A pod's asks, canonical: one instance per distinct list of asks, with its judgements by node
     * ({@link Snapshot.Entry#slot}). A filter reads one per candidate: an array indexed by slot keeps that to one
     * read of memory nearby, where a map per node state took half the filter's time at 1,000 nodes in misses of the
     * processor's cache. Readers and writers race benignly: a judgement lost to a table grown at the same moment is
     * made again; one read is either whole or absent (its fields are final).
     */
    private static final class Asked {
        private final List<Ask> asks;
        private volatile Judged[] bySlot = new Judged[0];

        Asked(List<Ask> asks) {
            this.asks = asks;
        }

        Judged get(Snapshot.Entry e, Policy current) {
            Judged[] table = bySlot;
            Judged j = e.slot() < table.length ? table[e.slot()] : null;
            return j != null && j.version() == e.version() && j.policy() == current ? j : null;
        }

        void put(int slot, Judged j) {
            Judged[] table = bySlot;
            if (slot >= table.length) {
                synchronized (this) {
                    table = bySlot;
                    if (slot >= table.length) {
                        table = Arrays.copyOf(table, Math.max(slot + 1, table.length * 2));
                        bySlot = table;
                    }
                }
            }
            table[slot] = j;
        }
    }

    /** @param policy the current policy (it may change as the workload estimate is refreshed) */
    public Decisions(Supplier<Policy> policy) {
        this(policy, Weights.DEFAULT);
    }

    public Decisions(Supplier<Policy> policy, Weights weights) {
        this.policy = policy;
        this.weights = weights;
    }

    /** The policy as it is now: what {@link Preemption} places a preemptor with, as the filter does. */
    public Policy policy() {
        return policy.get();
    }

    /**
     * An error when no node of the cluster could ever give the pod what it asks (more memory on one card than any
     * card has, more cards than any node has); empty otherwise.
     */
    public static Optional<String> impossible(PodAsk ask, Snapshot.Limits limits) {
        if (limits.maxCardsPerNode() == 0) {
            return Optional.of(
                    "no node in the cluster publishes healthy Elastic GPU cards; check that the node agent runs on"
                            + " the GPU nodes");
        }
        for (int i = 0; i < ask.containerAsks().size(); i++) {
            var a = ask.containerAsks().get(i);
            if (a.memoryMib() > limits.maxCardMemoryMib()) {
                return Optional.of(
                        "container %s asks %d MiB of GPU memory on one card; the largest card in the cluster has %d MiB"
                                .formatted(a.container(), a.memoryMib(), limits.maxCardMemoryMib()));
            }
            if (a.cards() > limits.maxCardsPerNode()) {
                return Optional.of("container %s asks %d cards on one node; the node with most healthy cards has %d"
                        .formatted(a.container(), a.cards(), limits.maxCardsPerNode()));
            }
        }
        return Optional.empty();
    }

    /**
     * Which candidates fit, each judged once per node state and ask (the judgement is kept with the state, as the
     * scores are: a node unchanged since the last pod of the same shape costs a lookup).
     *
     * @param names    the candidate nodes kube-scheduler sent
     * @param snapshot the cluster they are judged in (names without cards there cannot be helped)
     */
    public Filtered filter(PodAsk ask, List<String> names, Snapshot snapshot) {
        List<String> fit = new ArrayList<>();
        List<Snapshot.Entry> fitEntries = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        Map<String, String> unresolvable = new LinkedHashMap<>();
        Map<String, Integer> reasons = new LinkedHashMap<>();
        Policy current = policy.get();
        Asked asked = canonical(ask.asks());
        Snapshot.Entry[] entries = lookup.entries(snapshot, names);
        for (int i = 0; i < entries.length; i++) {
            String name = names.get(i);
            Snapshot.Entry e = entries[i];
            if (e == null) {
                unresolvable.put(name, "no Elastic GPU inventory published; run the node agent on the node");
                reasons.merge("no_inventory", 1, Integer::sum);
                continue;
            }
            Reason refused = judged(e, asked, current).reason();
            if (refused == Reason.FITS) {
                fit.add(name);
                fitEntries.add(e);
            } else {
                failed.put(name, category(refused));
                reasons.merge(refused.name().toLowerCase(java.util.Locale.ROOT), 1, Integer::sum);
                if (LOG.isDebugEnabled()) {
                    LOG.debug(
                            "node={} refused: {}",
                            name,
                            PodFit.of(ask.asks(), e.state(), current) instanceof PodFit.Refused r
                                    ? r.detail()
                                    : refused);
                }
            }
        }
        return new Filtered(fit, failed, unresolvable, reasons, fitEntries);
    }

    /**
     * Why a node does not fit, in one of a few fixed sentences: kube-scheduler counts equal reasons ("0/1213 nodes are
     * available: 1200 Elastic GPU: …"), so the pod's event stays short and the same on every retry (a message that
     * changes is an update that requeues the pod). The per-node detail goes to the debug log.
     */
    public static String category(Reason reason) {
        return "Elastic GPU: "
                + switch (reason) {
                    case TOO_MANY_PODS -> "the node holds as many pods as it may";
                    case INSUFFICIENT_CPU -> "not enough CPU left beside the cards";
                    case INSUFFICIENT_MEMORY -> "not enough memory left beside the cards";
                    case NO_GPU -> "the node has no GPU cards";
                    case MODEL_NOT_ACCEPTED -> "the node's GPU model is not one the pod accepts";
                    case NO_HEALTHY_GPU -> "the node has no healthy GPU card";
                    case INSUFFICIENT_GPU -> "no card (or set of cards) has the GPU share the pod asks free";
                    case FITS -> "fits";
                };
    }

    /**
     * The best of the fitting nodes, decided here instead of by kube-scheduler's scores, and the pod's cards there.
     * For most policies that is the node {@link #prioritize} would give {@value #MAX_SCORE}, the first by name on a
     * tie (so equal clusters decide equally). A policy with a {@link Lookahead} has its best-ranked nodes (the first
     * by name on equal rank) rolled out on the whole cluster ({@link Snapshot#bySlot}) for a pod that asks for cards,
     * as the simulator's placer does, and the rollout decides among them.
     *
     * @param filtered nodes the pod fits, as {@link #filter} found them in {@code snapshot}
     */
    public Optional<Decided> decide(PodAsk ask, Filtered filtered, Snapshot snapshot) {
        List<String> fit = filtered.fit();
        List<Snapshot.Entry> entries = filtered.entries();
        Policy current = policy.get();
        int n = entries.size();
        Asked asked = canonical(ask.asks());
        double[] place = places(asked, entries, current);
        Optional<Lookahead> lookahead = current.lookahead();
        int best = lookahead.isPresent() && ask.asks().getFirst().needsCards() && n > 1
                ? rollouts.choose(
                        ask.asks().getFirst(),
                        fit,
                        place,
                        i -> entries.get(i).slot(),
                        i -> judged(entries.get(i), asked, current).verdict().cards(),
                        current,
                        lookahead.get(),
                        snapshot.bySlot())
                : -1;
        if (best < 0) {
            for (int i = 0; i < n; i++) {
                if (place[i] == 1 && (best < 0 || fit.get(i).compareTo(fit.get(best)) < 0)) {
                    best = i;
                }
            }
        }
        Snapshot.Entry e = best < 0 ? null : entries.get(best);
        if (e != null && PodFit.of(ask.asks(), e.state(), current) instanceof PodFit.Fits a) {
            return Optional.of(new Decided(fit.get(best), a));
        }
        return Optional.empty();
    }

    /**
     * Scores 0..{@value #MAX_SCORE}: each fitting node's policy score and weakest link are placed between the worst
     * and the best among the candidates (0..1), weighed by {@link Weights}; the nodes with the best blend get
     * {@value #MAX_SCORE}, the others a share of it by their place between the worst and the best blend, capped below
     * it so that only the best win outright; nodes that do not fit get 0.
     */
    public int[] prioritize(PodAsk ask, List<String> names, Snapshot snapshot) {
        Policy current = policy.get();
        return scores(canonical(ask.asks()), Arrays.asList(lookup.entries(snapshot, names)), current);
    }

    /** {@link #prioritize}'s scores for nodes as read ({@code null}: no cards, 0). */
    private int[] scores(Asked asked, List<Snapshot.Entry> entries, Policy current) {
        double[] place = places(asked, entries, current);
        int[] out = new int[place.length];
        for (int i = 0; i < place.length; i++) {
            if (!Double.isNaN(place[i])) {
                out[i] = place[i] == 1 ? MAX_SCORE : (int) Math.min(MAX_SCORE - 1, Math.floor(MAX_SCORE * place[i]));
            }
        }
        return out;
    }

    /**
     * Each node's place among the fitting ones, 0..1 (1: the best blend of policy score and weakest link, by
     * {@link Weights}); NaN where the pod does not fit or the node has no cards ({@code null}).
     */
    private double[] places(Asked asked, List<Snapshot.Entry> entries, Policy current) {
        int n = entries.size();
        int[] fitting = new int[n];
        int count = 0;
        double[] raw = new double[n];
        double[] links = new double[n];
        for (int i = 0; i < n; i++) {
            Snapshot.Entry e = entries.get(i);
            Verdict verdict = e == null ? null : judged(e, asked, current).verdict();
            if (verdict != null) {
                raw[count] = verdict.score();
                links[count] = verdict.weakestLink();
                fitting[count++] = i;
            }
        }
        current.normalize(raw, count);
        double[] place = between(blend(between(raw, count), between(links, count), count), count);
        double[] out = new double[n];
        Arrays.fill(out, Double.NaN);
        for (int j = 0; j < count; j++) {
            out[fitting[j]] = place[j];
        }
        return out;
    }

    private Asked canonical(List<Ask> podAsks) {
        if (asks.size() > MAX_ASKS) {
            asks.clear();
        }
        return asks.computeIfAbsent(podAsks, Asked::new);
    }

    private double[] blend(double[] policyPlace, double[] linkPlace, int n) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = weights.policy() * policyPlace[i] + weights.topology() * linkPlace[i];
        }
        return out;
    }

    /** Each of the first {@code n} values' place between their minimum (0) and maximum (1); all 1 when equal. */
    private static double[] between(double[] values, int n) {
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            min = Math.min(min, values[i]);
            max = Math.max(max, values[i]);
        }
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = values[i] == max ? 1 : (values[i] - min) / (max - min);
        }
        return out;
    }

    /**
     * Whether the pod fits the node state and, when it does, the policy's verdict on the first container's placement;
     * kept by the ask for the node's slot, the state's version and the policy that judged it.
     */
    private Judged judged(Snapshot.Entry e, Asked asked, Policy current) {
        if (!current.cacheable()) {
            return judge(e, asked.asks, current);
        }
        Judged known = asked.get(e, current);
        if (known == null) {
            known = judge(e, asked.asks, current);
            asked.put(e.slot(), known);
        }
        return known;
    }

    private static Judged judge(Snapshot.Entry e, List<Ask> asks, Policy current) {
        NodeState s = e.state();
        Reason reason = PodFit.reason(asks, s, current);
        if (reason != Reason.FITS) {
            return new Judged(e.version(), current, reason, null);
        }
        Choice choice = current.choose(asks.getFirst(), s);
        int[] cards = choice.cards();
        return new Judged(
                e.version(),
                current,
                reason,
                new Verdict(choice.score(), s.node().topology().weakestRank(cards), cards));
    }
}
