package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * Compute asked in TFLOPS of one precision rather than as a share of a card, with the share it becomes on each card
 * model the {@link ModelTable} knows. Immutable.
 *
 * <p>On a model of peak {@code P} TFLOPS, {@code T} TFLOPS are {@code ceil(100 T / P)} percent of the card, the
 * granularity nodes offer compute in ({@value #GRANULARITY_MILLI} milli). A model on which that is the whole card or
 * more, or that lacks the precision, is not offered: a TFLOPS ask is a share of one card.
 *
 * @param tflops       asked on each card, > 0; or 0 for {@link #NONE}
 * @param precision    what the TFLOPS are counted in
 * @param milliByModel the share on each offered model, in milli-cards, by the {@link GpuModel#key} of every name (and
 *                     alias) of it (names given in another form are keyed on construction)
 * @param peakByModel  the peak of {@code precision} of each offered model, by the same keys
 */
public record ComputeAsk(
        int tflops, Precision precision, Map<String, Integer> milliByModel, Map<String, BigDecimal> peakByModel) {

    /** Compute is asked as a share ({@link Ask#milliPerCard()}), not in TFLOPS. */
    public static final ComputeAsk NONE = new ComputeAsk(0, Precision.DEFAULT, Map.of(), Map.of());

    /** Nodes offer compute in whole percents of a card. */
    public static final int GRANULARITY_MILLI = 10;

    public ComputeAsk {
        requireNonNull(precision, "precision");
        milliByModel = byKey(requireNonNull(milliByModel, "milliByModel"));
        peakByModel = byKey(requireNonNull(peakByModel, "peakByModel"));
        if (!peakByModel.keySet().equals(milliByModel.keySet())) {
            throw new IllegalArgumentException("a TFLOPS ask needs the peak of every model it is offered on");
        }
        if (tflops < 0) {
            throw new IllegalArgumentException("TFLOPS asked must be > 0, was %d".formatted(tflops));
        }
        for (var e : milliByModel.entrySet()) {
            if (e.getValue() < GRANULARITY_MILLI || e.getValue() >= Card.WHOLE) {
                throw new IllegalArgumentException("share of %s for %d TFLOPS %s must be %d..%d milli, was %d"
                        .formatted(
                                e.getKey(),
                                tflops,
                                precision.label(),
                                GRANULARITY_MILLI,
                                Card.WHOLE - 1,
                                e.getValue()));
            }
        }
    }

    /** Whether compute is asked in TFLOPS. */
    public boolean asked() {
        return tflops > 0;
    }

    /** {@code byModel} keyed by {@link GpuModel#key}: several names of one model become one entry. */
    private static <V> Map<String, V> byKey(Map<String, V> byModel) {
        Map<String, V> out = new java.util.HashMap<>();
        byModel.forEach((model, v) -> out.put(GpuModel.key(model), v));
        return Map.copyOf(out);
    }

    public boolean offers(String model) {
        return milliByModel.containsKey(GpuModel.key(model));
    }

    /** The share of a card of {@code model} this ask takes, in milli-cards; {@link Card#WHOLE} when not offered. */
    public int milliOn(String model) {
        Integer milli = milliByModel.get(GpuModel.key(model));
        return milli == null ? Card.WHOLE : milli;
    }

    /**
     * The TFLOPS a card of {@code model} gives this ask: its share of the peak, to two decimals rounded down (so never
     * more than the card gives); 0 on a model it is not offered.
     */
    public double givenOn(String model) {
        BigDecimal peak = peakByModel.get(GpuModel.key(model));
        return peak == null
                ? 0
                : peak.multiply(BigDecimal.valueOf(milliOn(model)))
                        .divide(BigDecimal.valueOf(Card.WHOLE), 2, RoundingMode.FLOOR)
                        .doubleValue();
    }

    /**
     * The share {@code tflops} take on a card of {@code peak} TFLOPS, rounded up to {@value #GRANULARITY_MILLI} milli;
     * -1 when that is the whole card or more. E.g. 100 TFLOPS bf16 on an H100 SXM (989.5): ceil(10.1) = 11 % = 110.
     */
    public static int shareMilli(int tflops, BigDecimal peak) {
        if (tflops <= 0 || peak.signum() <= 0) {
            throw new IllegalArgumentException("TFLOPS and peak must be > 0, were %d and %s".formatted(tflops, peak));
        }
        BigDecimal percent = BigDecimal.valueOf(tflops * 100L).divide(peak, 0, RoundingMode.CEILING);
        if (percent.compareTo(BigDecimal.valueOf(100)) >= 0) {
            return -1;
        }
        return Math.max(1, percent.intValueExact()) * GRANULARITY_MILLI;
    }

    /** The TFLOPS a share of {@code milli} gives on a card of {@code peak} TFLOPS. */
    public static double given(int milli, BigDecimal peak) {
        return peak.doubleValue() * milli / Card.WHOLE;
    }
}
