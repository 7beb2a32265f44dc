package io.elasticgpu.simulator.replay;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.ComputeAsk;
import io.elasticgpu.core.model.GpuModel;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Precision;
import io.elasticgpu.core.placement.Decision;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.simulator.trace.TracePod;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGeneratorFactory;

/**
 * The same pods asked two ways on one cluster: as fixed shares of a card (the trace as it is, the baseline), and
 * with each sharing pod's compute asked in TFLOPS: its share times the peak of the model the baseline gave it,
 * rounded down (of its first accepted model, or the cluster's most common known model, when the baseline placed it
 * nowhere). Whole-card pods stay whole cards. Both runs use one arrival order and node priority per seed and the
 * same policy.
 */
public final class TflopsComparison {

    /** One run's outcome. */
    public record Outcome(
            int pods,
            int placed,
            double gpuAllocationPercent,
            int sharingPods,
            int sharingPlaced,
            double tflopsAskedBySharingPods,
            double tflopsAskedByPlaced,
            double tflopsGivenToPlaced,
            int placedGivenLessThanAsked) {}

    /** Baseline and TFLOPS runs of one seed. */
    public record SeedResult(long seed, Outcome fixedShares, Outcome tflops) {}

    private final Experiment experiment;
    private final ModelTable table;
    private final Precision precision;
    private final String policy;

    public TflopsComparison(Experiment experiment, ModelTable table, Precision precision, String policy) {
        this.experiment = requireNonNull(experiment, "experiment");
        this.table = requireNonNull(table, "table");
        this.precision = requireNonNull(precision, "precision");
        this.policy = requireNonNull(policy, "policy");
    }

    public SeedResult run(long seed) {
        Experiment.Order order = experiment.order(seed);
        List<TracePod> pods = order.arrivals();
        List<Grant> baselineGrants = place(order.nodes(), pods, seed, null);
        String common = commonModel(order.nodes());
        List<Ask> convertedAsks = new ArrayList<>(pods.size());
        List<Double> asked = new ArrayList<>(pods.size());
        for (int i = 0; i < pods.size(); i++) {
            Ask ask = pods.get(i).ask();
            if (!ask.sharesOneCard() || ask.milliPerCard() == 0) {
                convertedAsks.add(ask);
                asked.add(0.0);
                continue;
            }
            Grant g = baselineGrants.get(i);
            String model = g != null
                    ? modelOf(order.nodes(), g)
                    : ask.models().isEmpty() ? common : ask.models().getFirst();
            BigDecimal peak = peak(model).orElse(peak(common).orElseThrow());
            int tflops = (int) Math.max(1, Math.floor(peak.doubleValue() * ask.milliPerCard() / Card.WHOLE));
            asked.add((double) tflops);
            ComputeAsk computeAsk;
            try {
                computeAsk = table.ask(tflops, precision);
            } catch (IllegalArgumentException e) {
                convertedAsks.add(ask); // more than a share of any card: it stays as it was asked
                asked.set(i, 0.0);
                continue;
            }
            convertedAsks.add(ask.withCompute(computeAsk));
        }
        List<Ask> baselineAsks = pods.stream().map(TracePod::ask).toList();
        Outcome fixed = outcome(order.nodes(), baselineAsks, baselineGrants, asked);
        List<Grant> tflopsGrants = place(order.nodes(), pods, seed, convertedAsks);
        Outcome byTflops = outcome(order.nodes(), convertedAsks, tflopsGrants, asked);
        return new SeedResult(seed, fixed, byTflops);
    }

    /** Places {@code asks} (or the pods' own asks) in order; null for a pod placed nowhere. */
    private List<Grant> place(List<Node> nodes, List<TracePod> pods, long seed, List<Ask> asks) {
        List<Ask> podAsks =
                asks != null ? asks : pods.stream().map(TracePod::ask).toList();
        TypicalWorkload workload = TypicalWorkload.estimate(podAsks, Experiment.TYPICAL_COVERAGE_PERCENT);
        var random = RandomGeneratorFactory.of("L64X128MixRandom").create(seed + 0x9E37_79B9_7F4A_7C15L);
        Placer placer = new Placer(Policies.create(policy, PolicyContext.of(random, workload)));
        ClusterState cluster = new ClusterState(nodes);
        List<Grant> grants = new ArrayList<>(podAsks.size());
        for (Ask ask : podAsks) {
            if (placer.place(ask, cluster) instanceof Decision.Placed p) {
                cluster.assume(p.placement());
                grants.add(p.placement());
            } else {
                grants.add(null);
            }
        }
        return grants;
    }

    private Outcome outcome(List<Node> nodes, List<Ask> asks, List<Grant> grants, List<Double> asked) {
        Map<String, Node> byName = new HashMap<>();
        nodes.forEach(n -> byName.put(n.name(), n));
        long capacity = 0;
        for (Node n : nodes) {
            capacity += (long) n.cardCount() * Card.WHOLE;
        }
        long used = 0;
        int placed = 0;
        int sharing = 0;
        int sharingPlaced = 0;
        double askedAll = 0;
        double askedPlaced = 0;
        double given = 0;
        int under = 0;
        for (int i = 0; i < asks.size(); i++) {
            Grant g = grants.get(i);
            boolean tflopsPod = asked.get(i) > 0;
            if (tflopsPod) {
                sharing++;
                askedAll += asked.get(i);
            }
            if (g == null) {
                continue;
            }
            placed++;
            used += g.totalMilli();
            if (!tflopsPod) {
                continue;
            }
            sharingPlaced++;
            askedPlaced += asked.get(i);
            double podGiven = 0;
            for (CardShare s : g.shares()) {
                Card card = byName.get(g.node()).cards().get(s.card());
                podGiven += ComputeAsk.given(s.milli(), peak(card.model()).orElse(BigDecimal.ZERO));
            }
            given += podGiven;
            if (podGiven + 1e-9 < asked.get(i)) {
                under++;
            }
        }
        return new Outcome(
                asks.size(),
                placed,
                100.0 * used / capacity,
                sharing,
                sharingPlaced,
                askedAll,
                askedPlaced,
                given,
                under);
    }

    private java.util.Optional<BigDecimal> peak(String model) {
        return table.find(model).flatMap((GpuModel m) -> m.peak(precision));
    }

    private static String modelOf(List<Node> nodes, Grant g) {
        for (Node n : nodes) {
            if (n.name().equals(g.node())) {
                return n.cards().get(g.shares().getFirst().card()).model();
            }
        }
        throw new IllegalStateException("no node " + g.node());
    }

    private String commonModel(List<Node> nodes) {
        Map<String, Integer> cards = new HashMap<>();
        for (Node n : nodes) {
            for (Card c : n.cards()) {
                if (peak(c.model()).isPresent()) {
                    cards.merge(c.model(), 1, Integer::sum);
                }
            }
        }
        return cards.entrySet().stream()
                .max(Map.Entry.<String, Integer>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                .map(Map.Entry::getKey)
                .orElseThrow(() -> new IllegalArgumentException("no card of the cluster is in the model table with "
                        + precision.label() + "; extend the table (--model-table)"));
    }
}
