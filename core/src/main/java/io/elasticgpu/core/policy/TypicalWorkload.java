package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes of pods a cluster expects and how often each arrives, estimated the way the FGD paper does: group the
 * observed pods by (CPU, milli per card, cards, models); keep the most frequent shapes until they cover a given
 * share of all pods; renormalise. Each shape also carries the median host memory of its group, which the paper
 * ignores and {@code elastic} uses. Immutable.
 */
public final class TypicalWorkload {

    /** One expected pod shape and its probability. */
    public record Typical(Ask ask, double probability) {
        public Typical {
            requireNonNull(ask, "ask");
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException(
                        "typical pod %s: probability must be 0..1, was %s".formatted(ask, probability));
            }
        }
    }

    /**
     * The pods that name GPU models, grouped by the models they accept: their share of all the GPU the pods ask, 0..1.
     */
    public record Named(List<String> models, double share) {
        public Named {
            models = List.copyOf(requireNonNull(models, "models"));
        }
    }

    private final List<Typical> typicals;
    private final int distinctShapes;
    private final List<Named> named;

    private TypicalWorkload(List<Typical> typicals, int distinctShapes, List<Named> named) {
        this.typicals = List.copyOf(typicals);
        this.distinctShapes = distinctShapes;
        this.named = List.copyOf(named);
    }

    /** A workload given directly, e.g. in tests; the pods that name models are its typical ones. */
    public static TypicalWorkload of(List<Typical> typicals) {
        Map<Ask, Double> weights = new LinkedHashMap<>();
        typicals.forEach(t -> weights.merge(t.ask(), t.probability(), Double::sum));
        return new TypicalWorkload(typicals, typicals.size(), named(weights));
    }

    /**
     * Estimates the workload from observed pods.
     *
     * @param asks            observed asks, in any order
     * @param coveragePercent keep shapes until they cover at least this percentage of the pods (the paper uses 95)
     */
    public static TypicalWorkload estimate(List<Ask> asks, int coveragePercent) {
        if (coveragePercent < 1 || coveragePercent > 100) {
            throw new IllegalArgumentException("coveragePercent must be 1..100, was %d".formatted(coveragePercent));
        }
        if (asks.isEmpty()) {
            throw new IllegalArgumentException("cannot estimate a workload from no pods");
        }
        Map<Ask, List<Long>> groups = new LinkedHashMap<>();
        for (Ask ask : asks) {
            groups.computeIfAbsent(shapeOf(ask), k -> new ArrayList<>()).add(ask.memoryMib());
        }
        Map<Ask, Integer> counts = new LinkedHashMap<>();
        groups.forEach((shape, memory) -> counts.put(shape, memory.size()));
        List<Map.Entry<Ask, Integer>> ranked = new ArrayList<>(counts.entrySet());
        ranked.sort(Map.Entry.<Ask, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(SHAPE_ORDER))
                .reversed());
        // The arithmetic below follows the paper's artifact operation by operation, so that frequencies, and with
        // them every FGD score, come out bit for bit the same.
        double total = asks.size();
        double expected = coveragePercent * total / 100.0;
        double covered = 0;
        int kept = 0;
        while (covered < expected && kept < ranked.size()) {
            covered += ranked.get(kept).getValue();
            kept++;
        }
        List<Typical> out = new ArrayList<>(kept);
        for (int i = 0; i < kept; i++) {
            double share = ranked.get(i).getValue() / total;
            double probability = kept == ranked.size() ? share : share / (covered / total);
            Ask ask = ranked.get(i).getKey();
            out.add(new Typical(withMemory(ask, median(groups.get(ask))), probability));
        }
        Map<Ask, Double> weights = new LinkedHashMap<>();
        counts.forEach((shape, count) -> weights.put(shape, (double) count));
        return new TypicalWorkload(out, ranked.size(), named(weights));
    }

    /**
     * Every shape that names models, weighted, as {@link Named}: the rare ones too, which the typical pods leave out.
     */
    private static List<Named> named(Map<Ask, Double> weights) {
        double all = 0;
        Map<List<String>, Double> groups = new LinkedHashMap<>();
        for (Map.Entry<Ask, Double> e : weights.entrySet()) {
            Ask ask = e.getKey();
            double gpu = e.getValue() * ask.cards() * (ask.milliPerCard() > 0 ? ask.milliPerCard() : Card.WHOLE);
            all += gpu;
            if (ask.needsCards() && !ask.models().isEmpty()) {
                groups.merge(ask.models(), gpu, Double::sum);
            }
        }
        double total = all;
        return groups.entrySet().stream()
                .map(g -> new Named(g.getKey(), g.getValue() / total))
                .toList();
    }

    /** Ties between equally frequent shapes go to the larger shape: CPU, then milli, then cards, then models. */
    private static final Comparator<Ask> SHAPE_ORDER = Comparator.comparingLong(Ask::cpuMilli)
            .thenComparingInt(Ask::milliPerCard)
            .thenComparingInt(Ask::cards)
            .thenComparing(ask -> String.join("|", ask.models()))
            .thenComparingLong(Ask::memoryMibPerCard)
            .thenComparingInt(Ask::memoryPercentPerCard)
            .thenComparingInt(ask -> ask.computeAsk().tflops())
            .thenComparing(ask -> ask.computeAsk().precision());

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static Ask withMemory(Ask ask, long memoryMib) {
        return new Ask(
                ask.cpuMilli(),
                memoryMib,
                ask.cards(),
                ask.milliPerCard(),
                ask.memoryMibPerCard(),
                ask.models(),
                ask.memoryPercentPerCard(),
                ask.computeAsk());
    }

    private static Ask shapeOf(Ask ask) {
        return withMemory(ask, 0);
    }

    public List<Typical> typicals() {
        return typicals;
    }

    /** The observed pods that name GPU models, rare shapes included, by models and cards. */
    public List<Named> named() {
        return named;
    }

    /** How many distinct shapes the observed pods had, before the rare ones were cut. */
    public int distinctShapes() {
        return distinctShapes;
    }

    /** The share of observed pods the kept shapes cover, 0..1. */
    public double coverage(List<Ask> asks) {
        var kept = typicals.stream().map(t -> withMemory(t.ask(), 0)).toList();
        return asks.stream()
                        .map(TypicalWorkload::shapeOf)
                        .filter(kept::contains)
                        .count()
                / (double) asks.size();
    }
}
