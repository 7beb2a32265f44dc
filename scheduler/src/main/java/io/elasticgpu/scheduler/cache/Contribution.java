package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.Allocation;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Placement;
import io.elasticgpu.core.model.Request;

import java.util.ArrayList;
import java.util.List;

/**
 * What one pod takes on its node, as placement-engine placements: its CPU and memory, and, when it holds cards,
 * each container's shares. Immutable.
 */
public record Contribution(String node, List<Placement> placements) {

    public Contribution {
        placements = List.copyOf(placements);
    }

    /** A pod of {@code totals} holding {@code allocation} (or no cards, when null) on {@code node}. */
    public static Contribution of(String node, PodResources.Totals totals, Allocation allocation) {
        List<Placement> placements = new ArrayList<>();
        long cpu = totals.cpuMilli();
        long memory = totals.memoryMib();
        if (allocation != null) {
            for (List<Allocation.Share> shares : allocation.containers().values()) {
                if (shares.isEmpty()) {
                    continue;
                }
                placements.add(new Placement(node, request(cpu, memory, shares), shares.stream()
                        .map(s -> new CardShare(s.card(), s.milli(), s.memoryMib())).toList()));
                cpu = 0;
                memory = 0;
            }
        }
        if (placements.isEmpty()) {
            placements.add(new Placement(node, Request.cpuOnly(cpu, memory), List.of()));
        }
        return new Contribution(node, placements);
    }

    private static Request request(long cpu, long memory, List<Allocation.Share> shares) {
        Allocation.Share first = shares.getFirst();
        if (first.milli() == Card.WHOLE) {
            return Request.wholeCards(cpu, memory, shares.size());
        }
        return new Request(cpu, memory, shares.size(), first.milli(), first.memoryMib(), List.of());
    }
}
