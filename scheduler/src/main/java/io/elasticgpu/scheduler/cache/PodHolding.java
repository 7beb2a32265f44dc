package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.DraShares.DraShare;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.ArrayList;
import java.util.List;

/**
 * What one pod takes on its node, as placement-engine placements: its CPU and memory, and, when it holds cards,
 * each container's shares; or what one allocated DRA claim holds there, its cards alone ({@code pod} false: the
 * claim's pods count themselves). Immutable.
 */
public record PodHolding(String node, List<Grant> placements, boolean pod) {

    public PodHolding {
        placements = List.copyOf(placements);
    }

    /**
     * What an allocated claim holds on {@code node}: each device of ours there as a one-card share. A device taken
     * whole, all of its compute (100 cores) or all of its memory the ask policy offers (the card's memory
     * rounded down to the block: what a claim asking no memory consumes) is the card alone, as a whole card is
     * recorded: all of its compute and its memory. Shares on other pools are not this node's; our pools are nodes,
     * so a claim's devices are all on the node it was allocated to.
     *
     * @param known    the node's cards, or null when the node is not known yet (a card's memory counts as 0)
     * @param blockMib the memory block of the agents' ask policy
     */
    public static PodHolding ofClaim(String node, List<DraShare> shares, Node known, long blockMib) {
        List<Grant> placements = new ArrayList<>();
        for (DraShare s : shares) {
            if (!s.node().equals(node) || s.card() < 0) {
                continue;
            }
            long card = known == null || s.card() >= known.cards().size()
                    ? 0
                    : known.cards().get(s.card()).memoryMib();
            long memory = s.wholeCard() ? card : s.memoryMib();
            boolean whole = s.wholeCard()
                    || s.milli() >= Card.WHOLE
                    || card > 0 && memory >= DraNames.offeredMemoryMib(card, blockMib);
            placements.add(new Grant(
                    node,
                    whole ? Ask.wholeCards(0, 0, 1) : new Ask(0, 0, 1, s.milli(), memory, List.of()),
                    List.of(new CardShare(s.card(), whole ? Card.WHOLE : s.milli(), memory))));
        }
        return new PodHolding(node, placements, false);
    }

    /** {@code state} with this counted: a pod's placements, or a claim's cards without a pod. */
    NodeState addTo(NodeState state) {
        return pod ? state.with(placements) : state.withHeld(placements);
    }

    /** {@code state} without what {@link #addTo} counted. */
    NodeState removeFrom(NodeState state) {
        return pod ? state.without(placements) : state.withoutHeld(placements);
    }

    /** The same pod holding no cards: its CPU and memory only (its cards are counted through its claims). */
    public PodHolding hostOnly() {
        long cpu = placements.stream().mapToLong(p -> p.ask().cpuMilli()).sum();
        long memory = placements.stream().mapToLong(p -> p.ask().memoryMib()).sum();
        return new PodHolding(node, List.of(new Grant(node, Ask.cpuOnly(cpu, memory), List.of())), pod);
    }

    /** A pod of {@code totals} holding {@code allocation} (or no cards, when null) on {@code node}. */
    public static PodHolding of(String node, PodResources.Totals totals, PodGrant allocation) {
        List<Grant> placements = new ArrayList<>();
        long cpu = totals.cpuMilli();
        long memory = totals.memoryMib();
        if (allocation != null) {
            for (List<PodGrant.Share> shares : allocation.containers().values()) {
                if (shares.isEmpty()) {
                    continue;
                }
                placements.add(new Grant(
                        node,
                        ask(cpu, memory, shares),
                        shares.stream()
                                .map(s -> new CardShare(s.card(), s.milli(), s.memoryMib()))
                                .toList()));
                cpu = 0;
                memory = 0;
            }
        }
        if (placements.isEmpty()) {
            placements.add(new Grant(node, Ask.cpuOnly(cpu, memory), List.of()));
        }
        return new PodHolding(node, placements, true);
    }

    private static Ask ask(long cpu, long memory, List<PodGrant.Share> shares) {
        PodGrant.Share first = shares.getFirst();
        if (first.milli() == Card.WHOLE) {
            return Ask.wholeCards(cpu, memory, shares.size());
        }
        return new Ask(cpu, memory, shares.size(), first.milli(), first.memoryMib(), List.of());
    }
}
