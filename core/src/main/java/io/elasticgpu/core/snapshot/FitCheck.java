package io.elasticgpu.core.snapshot;

import io.elasticgpu.core.model.Ask;

/**
 * Whether an ask fits a node now, and if not, why. The checks run in a fixed order (pods, CPU, memory, GPUs,
 * models, health, card capacity) so that the reason reported is always the first one a person must fix.
 */
final class FitCheck {

    private FitCheck() {}

    static Reason reason(Ask ask, NodeState s) {
        if (s.freePods() < 1) {
            return Reason.TOO_MANY_PODS;
        }
        if (s.freeCpu() < ask.cpuMilli()) {
            return Reason.INSUFFICIENT_CPU;
        }
        if (s.freeMemory() < ask.memoryMib()) {
            return Reason.INSUFFICIENT_MEMORY;
        }
        if (!ask.needsCards()) {
            return Reason.FITS;
        }
        return cardReason(ask, s);
    }

    private static Reason cardReason(Ask ask, NodeState s) {
        int cards = s.cardCount();
        if (cards == 0) {
            return Reason.NO_GPU;
        }
        boolean anyAccepted = false;
        boolean anyHealthy = false;
        int fitting = 0;
        for (int i = 0; i < cards; i++) {
            if (!s.acceptsModel(ask, i)) {
                continue;
            }
            anyAccepted = true;
            if (!s.healthy(i)) {
                continue;
            }
            anyHealthy = true;
            if (s.cardFits(ask, i) && ++fitting == ask.cards()) {
                return Reason.FITS;
            }
        }
        if (!anyAccepted) {
            return Reason.MODEL_NOT_ACCEPTED;
        }
        return anyHealthy ? Reason.INSUFFICIENT_GPU : Reason.NO_HEALTHY_GPU;
    }

    static Fit explain(Ask ask, NodeState s) {
        Reason reason = reason(ask, s);
        String node = s.name();
        return switch (reason) {
            case FITS -> new Fit.Fits();
            case TOO_MANY_PODS ->
                new Fit.DoesNotFit(
                        reason,
                        node,
                        "already runs %d of its %d pods"
                                .formatted(s.pods(), s.node().maxPods()));
            case INSUFFICIENT_CPU ->
                new Fit.DoesNotFit(
                        reason, node, "%d milli-CPU free, the pod asks %d".formatted(s.freeCpu(), ask.cpuMilli()));
            case INSUFFICIENT_MEMORY ->
                new Fit.DoesNotFit(
                        reason,
                        node,
                        "%d MiB of memory free, the pod asks %d".formatted(s.freeMemory(), ask.memoryMib()));
            case NO_GPU -> new Fit.DoesNotFit(reason, node, "no GPUs");
            case MODEL_NOT_ACCEPTED ->
                new Fit.DoesNotFit(
                        reason,
                        node,
                        ask.computeAsk().asked()
                                        && (ask.models().isEmpty()
                                                || ask.models()
                                                        .contains(s.node().model()))
                                ? ("%s cards: not in the model table, or %d TFLOPS of %s are a whole card or more"
                                                + " there")
                                        .formatted(
                                                s.node().model(),
                                                ask.computeAsk().tflops(),
                                                ask.computeAsk().precision().label())
                                : "%s cards; the pod accepts only %s"
                                        .formatted(s.node().model(), String.join(", ", ask.models())));
            case NO_HEALTHY_GPU ->
                new Fit.DoesNotFit(
                        reason, node, "all of its %d cards the pod accepts are unhealthy".formatted(s.cardCount()));
            case INSUFFICIENT_GPU -> new Fit.DoesNotFit(reason, node, gpuDetail(ask, s));
        };
    }

    private static String gpuDetail(Ask ask, NodeState s) {
        int fitting = s.fittingCards(ask).length;
        if (ask.wholeCards()) {
            return "%d whole cards free, the pod asks %d".formatted(fitting, ask.cards());
        }
        boolean byPercent = ask.memoryPercentPerCard() > 0;
        boolean byMemory = ask.memoryMibPerCard() > 0 || byPercent;
        boolean byTflops = !byMemory && ask.computeAsk().asked();
        long asked = byPercent
                ? ask.memoryPercentPerCard()
                : byMemory
                        ? ask.memoryMibPerCard()
                        : byTflops ? ask.milliOn(s.node().cards().getFirst()) : ask.milliPerCard();
        String unit = byPercent ? "% of memory" : byMemory ? "MiB" : "milli";
        if (fitting > 0) {
            return "only %d cards have %d %s free, the pod asks %d cards".formatted(fitting, asked, unit, ask.cards());
        }
        int best = -1;
        long bestFree = -1;
        for (int i = 0; i < s.cardCount(); i++) {
            if (!s.card(i).healthy() || !ask.acceptsModel(s.card(i).model())) {
                continue;
            }
            long free = byPercent
                    ? s.freeMemory(i) * 100 / Math.max(1, s.card(i).memoryMib())
                    : byMemory ? s.freeMemory(i) : s.freeMilli(i);
            if (free > bestFree) {
                best = i;
                bestFree = free;
            }
        }
        return "no card has %d %s free; largest free is %d %s on card %d".formatted(asked, unit, bestFree, unit, best);
    }
}
