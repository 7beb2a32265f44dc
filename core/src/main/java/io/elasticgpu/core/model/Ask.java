package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What one pod asks for. Immutable.
 *
 * <p>Three shapes exist: CPU-only ({@code cards == 0}); whole cards ({@code milliPerCard == 1000}, exclusive); and
 * slices ({@code cards} distinct cards, each giving {@code milliPerCard} compute and/or memory: {@code
 * memoryMibPerCard},
 * or {@code memoryPercentPerCard} of whichever card it is given, as HAMi's {@code gpumem-percentage} asks).
 *
 * @param cpuMilli         CPU in milli-cores
 * @param memoryMib        host memory
 * @param cards            how many distinct cards
 * @param milliPerCard     compute taken on each card, 0..1000; 1000 means the whole card
 * @param memoryMibPerCard device memory taken on each card; 0 for whole cards, which take all of it
 * @param models           acceptable GPU models in the order given; empty means any model
 * @param memoryPercentPerCard device memory taken on each card in percent of that card's memory (1..99), 0 when
 *                         asked in MiB or not at all; {@link #memoryMibOn} turns it into MiB for a given card
 * @param computeAsk       compute asked in TFLOPS instead of {@code milliPerCard} (then 0): {@link #milliOn} turns
 *                         it into a share of a given card; {@link ComputeAsk#NONE} when asked as a share
 */
public record Ask(
        long cpuMilli,
        long memoryMib,
        int cards,
        int milliPerCard,
        long memoryMibPerCard,
        List<String> models,
        int memoryPercentPerCard,
        ComputeAsk computeAsk) {

    /** An ask whose memory, if any, is asked in MiB. */
    public Ask(long cpuMilli, long memoryMib, int cards, int milliPerCard, long memoryMibPerCard, List<String> models) {
        this(cpuMilli, memoryMib, cards, milliPerCard, memoryMibPerCard, models, 0);
    }

    /** An ask whose compute, if any, is a share of the card ({@link #milliPerCard}). */
    public Ask(
            long cpuMilli,
            long memoryMib,
            int cards,
            int milliPerCard,
            long memoryMibPerCard,
            List<String> models,
            int memoryPercentPerCard) {
        this(cpuMilli, memoryMib, cards, milliPerCard, memoryMibPerCard, models, memoryPercentPerCard, ComputeAsk.NONE);
    }

    public Ask {
        models = List.copyOf(requireNonNull(models, "models"));
        requireNonNull(computeAsk, "computeAsk");
        if (computeAsk.asked() && (milliPerCard > 0 || cards == 0)) {
            throw new IllegalArgumentException(
                    ("ask: asks %d TFLOPS with %d milli per card on %d cards; ask compute in TFLOPS or as a"
                                    + " share, on at least one card")
                            .formatted(computeAsk.tflops(), milliPerCard, cards));
        }
        if (cpuMilli < 0 || memoryMib < 0) {
            throw new IllegalArgumentException(
                    "ask: cpuMilli and memoryMib must be >= 0, were %d and %d".formatted(cpuMilli, memoryMib));
        }
        if (cards < 0) {
            throw new IllegalArgumentException("ask: cards must be >= 0, was %d".formatted(cards));
        }
        if (milliPerCard < 0 || milliPerCard > Card.WHOLE) {
            throw new IllegalArgumentException(
                    ("ask: milliPerCard must be 0..%d, was %d;" + " ask for %d to get whole cards")
                            .formatted(Card.WHOLE, milliPerCard, Card.WHOLE));
        }
        if (memoryMibPerCard < 0) {
            throw new IllegalArgumentException(
                    "ask: memoryMibPerCard must be >= 0, was %d".formatted(memoryMibPerCard));
        }
        if (memoryPercentPerCard < 0 || memoryPercentPerCard > 99) {
            throw new IllegalArgumentException(
                    ("ask: memoryPercentPerCard must be 0..99, was %d; all of a card's" + " memory is the whole card")
                            .formatted(memoryPercentPerCard));
        }
        if (memoryPercentPerCard > 0 && (memoryMibPerCard > 0 || milliPerCard == Card.WHOLE)) {
            throw new IllegalArgumentException(("ask: memory in percent (%d) goes with neither memory in MiB (%d) nor"
                            + " whole cards; ask one of them")
                    .formatted(memoryPercentPerCard, memoryMibPerCard));
        }
        if (cards == 0 && (milliPerCard > 0 || memoryMibPerCard > 0 || memoryPercentPerCard > 0)) {
            throw new IllegalArgumentException(
                    ("ask: asks %d milli and %d MiB per card but 0 cards;" + " set cards to at least 1")
                            .formatted(milliPerCard, memoryMibPerCard));
        }
        if (cards > 0
                && milliPerCard == 0
                && memoryMibPerCard == 0
                && memoryPercentPerCard == 0
                && !computeAsk.asked()) {
            throw new IllegalArgumentException(
                    ("ask: asks %d cards but no compute or memory on them;" + " set milliPerCard or memoryMibPerCard")
                            .formatted(cards));
        }
        if (milliPerCard == Card.WHOLE && memoryMibPerCard > 0) {
            throw new IllegalArgumentException(("ask: whole cards already include all their memory;"
                            + " drop memoryMibPerCard (%d) or ask for less than %d milli")
                    .formatted(memoryMibPerCard, Card.WHOLE));
        }
        for (String model : models) {
            if (model == null || model.isBlank()) {
                throw new IllegalArgumentException("ask: models must not contain blank names, were " + models);
            }
        }
    }

    public static Ask cpuOnly(long cpuMilli, long memoryMib) {
        return new Ask(cpuMilli, memoryMib, 0, 0, 0, List.of());
    }

    public static Ask wholeCards(long cpuMilli, long memoryMib, int cards) {
        return new Ask(cpuMilli, memoryMib, cards, Card.WHOLE, 0, List.of());
    }

    /** A compute slice of one card, the shape of the Alibaba trace's sharing pods. */
    public static Ask computeSlice(long cpuMilli, long memoryMib, int milli) {
        return new Ask(cpuMilli, memoryMib, 1, milli, 0, List.of());
    }

    public Ask withModels(List<String> acceptable) {
        return new Ask(
                cpuMilli,
                memoryMib,
                cards,
                milliPerCard,
                memoryMibPerCard,
                acceptable,
                memoryPercentPerCard,
                computeAsk);
    }

    /** The same ask with its compute asked in TFLOPS: {@code milliPerCard} becomes 0. */
    public Ask withCompute(ComputeAsk computeAsk) {
        return new Ask(cpuMilli, memoryMib, cards, 0, memoryMibPerCard, models, memoryPercentPerCard, computeAsk);
    }

    /** The same ask without host CPU and memory, and with no other change. */
    public Ask withoutHost() {
        return new Ask(0, 0, cards, milliPerCard, memoryMibPerCard, models, memoryPercentPerCard, computeAsk);
    }

    /**
     * The compute this ask takes on {@code card}, in milli-cards: {@link #milliPerCard}, or the share its TFLOPS
     * are of that card's model ({@link Card#WHOLE} on a model the TFLOPS ask is not offered).
     */
    public int milliOn(Card card) {
        return computeAsk.asked() ? computeAsk.milliOn(card.model()) : milliPerCard;
    }

    /**
     * The device memory this ask takes on {@code card}, in MiB: what it asked in MiB, or its percent of the card's
     * memory rounded down (as HAMi computes it, so that shares of percents adding up to 100 fit on the card).
     */
    public long memoryMibOn(Card card) {
        return memoryPercentPerCard == 0 ? memoryMibPerCard : card.memoryMib() * memoryPercentPerCard / 100;
    }

    public boolean needsCards() {
        return cards > 0;
    }

    /** Whole cards, exclusive: no other pod may share them. */
    public boolean wholeCards() {
        return cards > 0 && milliPerCard == Card.WHOLE;
    }

    /** A slice of one card that other pods may share. */
    public boolean sharesOneCard() {
        return cards == 1 && milliPerCard < Card.WHOLE;
    }

    /** Total compute asked, in milli-cards: {@code cards x milliPerCard}. */
    public long totalMilli() {
        return (long) cards * milliPerCard;
    }

    /** Whether this ask may take a card of {@code model}: one it names, and one its TFLOPS ask is offered. */
    public boolean acceptsModel(String model) {
        return (models.isEmpty() || models.contains(model)) && (!computeAsk.asked() || computeAsk.offers(model));
    }

    /**
     * How much of {@code card} this ask takes, in milli-cards: the larger of its compute share and its memory
     * share, so that policies can weigh memory slices and compute slices on one scale.
     */
    public int shareOf(Card card) {
        long memoryMibOnCard = memoryMibOn(card);
        int milli = milliOn(card);
        if (memoryMibOnCard == 0 || card.memoryMib() == 0) {
            return milli;
        }
        long memoryShare = Math.ceilDiv(memoryMibOnCard * Card.WHOLE, card.memoryMib());
        return (int) Math.min(Card.WHOLE, Math.max(milli, memoryShare));
    }

    /** The kind of GPU pod, as GPU-clustering groups them: {@code cpu}, {@code share} or {@code <k>-gpu}. */
    public String tag() {
        if (cards == 0) {
            return "cpu";
        }
        return sharesOneCard() ? "share" : cards + "-gpu";
    }
}
