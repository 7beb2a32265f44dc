package io.elasticgpu.core.snapshot;

import io.elasticgpu.core.model.Ask;

/**
 * Whether an ask fits a node now, and if not, why. The checks run in a fixed order (pods, CPU, memory, GPUs,
 * models, health, card capacity) so that the reason reported is always the first one a person must fix.
 */
final class FitCheck {

    private FitCheck() {}

    static Reason reason(Ask r, NodeState s) {
        if (s.freePods() < 1) {
            return Reason.TOO_MANY_PODS;
        }
        if (s.freeCpu() < r.cpuMilli()) {
            return Reason.INSUFFICIENT_CPU;
        }
        if (s.freeMemory() < r.memoryMib()) {
            return Reason.INSUFFICIENT_MEMORY;
        }
        if (!r.needsCards()) {
            return Reason.FITS;
        }
        return cardReason(r, s);
    }

    private static Reason cardReason(Ask r, NodeState s) {
        int cards = s.cardCount();
        if (cards == 0) {
            return Reason.NO_GPU;
        }
        boolean anyAccepted = false;
        boolean anyHealthy = false;
        int fitting = 0;
        for (int i = 0; i < cards; i++) {
            if (!s.acceptsModel(r, i)) {
                continue;
            }
            anyAccepted = true;
            if (!s.healthy(i)) {
                continue;
            }
            anyHealthy = true;
            if (s.cardFits(r, i) && ++fitting == r.cards()) {
                return Reason.FITS;
            }
        }
        if (!anyAccepted) {
            return Reason.MODEL_NOT_ACCEPTED;
        }
        return anyHealthy ? Reason.INSUFFICIENT_GPU : Reason.NO_HEALTHY_GPU;
    }

    static Fit explain(Ask r, NodeState s) {
        Reason reason = reason(r, s);
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
                        reason, node, "%d milli-CPU free, the pod asks %d".formatted(s.freeCpu(), r.cpuMilli()));
            case INSUFFICIENT_MEMORY ->
                new Fit.DoesNotFit(
                        reason,
                        node,
                        "%d MiB of memory free, the pod asks %d".formatted(s.freeMemory(), r.memoryMib()));
            case NO_GPU -> new Fit.DoesNotFit(reason, node, "no GPUs");
            case MODEL_NOT_ACCEPTED ->
                new Fit.DoesNotFit(
                        reason,
                        node,
                        r.compute().asked()
                                        && (r.models().isEmpty()
                                                || r.models().contains(s.node().model()))
                                ? ("%s cards: not in the model table, or %d TFLOPS of %s are a whole card or more"
                                                + " there")
                                        .formatted(
                                                s.node().model(),
                                                r.compute().tflops(),
                                                r.compute().precision().label())
                                : "%s cards; the pod accepts only %s"
                                        .formatted(s.node().model(), String.join(", ", r.models())));
            case NO_HEALTHY_GPU ->
                new Fit.DoesNotFit(
                        reason, node, "all of its %d cards the pod accepts are unhealthy".formatted(s.cardCount()));
            case INSUFFICIENT_GPU -> new Fit.DoesNotFit(reason, node, gpuDetail(r, s));
        };
    }

    private static String gpuDetail(Ask r, NodeState s) {
        int fitting = s.fittingCards(r).length;
        if (r.wholeCards()) {
            return "%d whole cards free, the pod asks %d".formatted(fitting, r.cards());
        }
        boolean byPercent = r.memoryPercentPerCard() > 0;
        boolean byMemory = r.memoryMibPerCard() > 0 || byPercent;
        boolean byTflops = !byMemory && r.compute().asked();
        long asked = byPercent
                ? r.memoryPercentPerCard()
                : byMemory
                        ? r.memoryMibPerCard()
                        : byTflops ? r.milliOn(s.node().cards().getFirst()) : r.milliPerCard();
        String unit = byPercent ? "% of memory" : byMemory ? "MiB" : "milli";
        if (fitting > 0) {
            return "only %d cards have %d %s free, the pod asks %d cards".formatted(fitting, asked, unit, r.cards());
        }
        int best = -1;
        long bestFree = -1;
        for (int i = 0; i < s.cardCount(); i++) {
            if (!s.card(i).healthy() || !r.acceptsModel(s.card(i).model())) {
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
