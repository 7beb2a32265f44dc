package io.elasticgpu.controller.view;

import io.elasticgpu.core.model.CardTflops;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Compute still free, in TFLOPS of one precision, as core's {@link io.elasticgpu.core.model.ModelTable#free} counts
 * it for each card: for a card, its model's peak × its compute not held; for a node and the summary, the sum over the
 * healthy cards that have a figure (an unhealthy card is offered nothing).
 *
 * @param precision what the TFLOPS are counted in, e.g. {@code bf16}
 * @param free      the TFLOPS, two decimals; null when no card counted has a figure
 * @param unknown   a card: why it has no figure ({@code unknown model}, {@code no bf16 figure}); a node or the summary:
 *                  the healthy cards not counted and why ({@code 2 cards: unknown model}); null when all are counted
 */
public record FreeTflops(String precision, BigDecimal free, String unknown) {

    static FreeTflops of(CardTflops card) {
        return new FreeTflops(card.precision().label(), card.tflops(), card.unknown());
    }

    /** The sum of {@code cards} (the healthy ones), naming those without a figure. */
    static FreeTflops sum(String precision, List<FreeTflops> cards) {
        BigDecimal total = null;
        Map<String, Integer> missing = new TreeMap<>();
        for (FreeTflops card : cards) {
            if (card.free() == null) {
                missing.merge(card.unknown(), 1, Integer::sum);
            } else {
                total = total == null ? card.free() : total.add(card.free());
            }
        }
        String unknown = missing.isEmpty()
                ? null
                : missing.entrySet().stream()
                        .map(e -> "%d card%s: %s".formatted(e.getValue(), e.getValue() == 1 ? "" : "s", e.getKey()))
                        .collect(Collectors.joining(", "));
        return new FreeTflops(precision, total, unknown);
    }
}
