package io.elasticgpu.controller.view;

/**
 * Totals over the nodes in scope and over every namespace. Compute is in percent of a card, 100 per card; capacity
 * counts unhealthy cards too. {@code podsPending} counts, cluster-wide, pods that ask GPUs and are not bound yet.
 * {@code freeTflops} sums the nodes' ({@link FreeTflops}: healthy cards only).
 */
public record Summary(
        int nodes,
        int cards,
        int unhealthyCards,
        long memoryGrantedMib,
        long memoryCapacityMib,
        long computeGrantedPercent,
        long computeCapacityPercent,
        int podsHoldingCards,
        int podsPending,
        FreeTflops freeTflops) {}
