package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;

/**
 * The TFLOPS a part of one card gives in one precision, by the {@link ModelTable}: a figure, or why there is none (the
 * table lacks the card's model, or the model lacks the precision), never a zero that stands for "not known".
 * Immutable; made by {@link ModelTable#free}.
 *
 * @param precision what the TFLOPS are counted in
 * @param tflops    the figure, two decimals rounded down (never more than the card gives); null when unknown
 * @param unknown   why there is no figure ({@value #UNKNOWN_MODEL}, or e.g. {@code no bf16 figure}); null when known
 */
public record CardTflops(Precision precision, BigDecimal tflops, String unknown) {

    /** Why a card whose model the table lacks has no figure. */
    public static final String UNKNOWN_MODEL = "unknown model";

    public CardTflops {
        requireNonNull(precision, "precision");
        if ((tflops == null) == (unknown == null)) {
            throw new IllegalArgumentException("card TFLOPS: give a figure or why there is none, not both or neither");
        }
        if (tflops != null && tflops.signum() < 0) {
            throw new IllegalArgumentException("card TFLOPS must be >= 0, was " + tflops.toPlainString());
        }
    }

    /** Whether there is a figure. */
    public boolean known() {
        return tflops != null;
    }
}
