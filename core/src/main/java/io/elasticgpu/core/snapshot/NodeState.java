package io.elasticgpu.core.snapshot;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the pods on one node use, card by card. Immutable: {@link #with} and {@link #without} return new states,
 * and both refuse any change that would take a card, the CPU or the memory past capacity (rule 2 of DESIGN.md is
 * enforced here, at the lowest level, whatever the caller).
 */
public final class NodeState {

    private final Node node;
    private final long usedCpu;
    private final long usedMemory;
    private final int pods;
    private final int[] usedMilli;
    private final long[] usedCardMemory;
    private final Map<String, Integer> gpuPodTags;
    private final long freeShareTotal;
    // Derived at construction so that fit checks read two small arrays rather than every Card object: the
    // extender checks thousands of nodes per call, and chasing cards through the heap is what costs there.
    private final int[] availableMilli; // free compute of each healthy card; -1 for an unhealthy one
    private final long[] availableMemory; // free memory of each card
    private final long freeCpu;
    private final long freeMemory;
    private final int freePods;

    private NodeState(
            Node node,
            long usedCpu,
            long usedMemory,
            int pods,
            int[] usedMilli,
            long[] usedCardMemory,
            Map<String, Integer> gpuPodTags) {
        this.node = node;
        this.usedCpu = usedCpu;
        this.usedMemory = usedMemory;
        this.pods = pods;
        this.usedMilli = usedMilli;
        this.usedCardMemory = usedCardMemory;
        this.gpuPodTags = gpuPodTags;
        long total = 0;
        this.availableMilli = new int[usedMilli.length];
        this.availableMemory = new long[usedMilli.length];
        for (int i = 0; i < usedMilli.length; i++) {
            total += freeShare(i);
            Card c = card(i);
            availableMilli[i] = c.healthy() ? c.computeMilli() - usedMilli[i] : -1;
            availableMemory[i] = c.memoryMib() - usedCardMemory[i];
        }
        this.freeShareTotal = total;
        this.freeCpu = node.cpuMilli() - usedCpu;
        this.freeMemory = node.memoryMib() - usedMemory;
        this.freePods = node.maxPods() - pods;
    }

    /** A node nothing runs on yet. */
    public static NodeState empty(Node node) {
        requireNonNull(node, "node");
        int cards = node.cardCount();
        return new NodeState(node, 0, 0, 0, new int[cards], new long[cards], Map.of());
    }

    public Node node() {
        return node;
    }

    public String name() {
        return node.name();
    }

    public int cardCount() {
        return usedMilli.length;
    }

    public Card card(int index) {
        return node.cards().get(index);
    }

    public int pods() {
        return pods;
    }

    /** How many more pods the node admits. */
    public int freePods() {
        return freePods;
    }

    public long freeCpu() {
        return freeCpu;
    }

    public long freeMemory() {
        return freeMemory;
    }

    public int usedMilli(int card) {
        return usedMilli[card];
    }

    public int freeMilli(int card) {
        return card(card).computeMilli() - usedMilli[card];
    }

    public long usedMemory(int card) {
        return usedCardMemory[card];
    }

    public long freeMemory(int card) {
        return card(card).memoryMib() - usedCardMemory[card];
    }

    /** Nothing is placed on this card. */
    public boolean idle(int card) {
        return usedMilli[card] == 0 && usedCardMemory[card] == 0;
    }

    /**
     * What is left of a card on one scale, in milli-cards: the smaller of its free compute and its free memory
     * share. Zero for an unhealthy card, whose capacity nobody can use.
     */
    public int freeShare(int card) {
        Card c = card(card);
        if (!c.healthy()) {
            return 0;
        }
        int compute = c.computeMilli() - usedMilli[card];
        if (c.memoryMib() == 0 || usedCardMemory[card] == 0) {
            return compute;
        }
        long memory = (c.memoryMib() - usedCardMemory[card]) * Card.WHOLE / c.memoryMib();
        return (int) Math.min(compute, memory);
    }

    /** The sum of {@link #freeShare} over all cards: the node's idle GPU capacity, in milli-cards. */
    public long freeShareTotal() {
        return freeShareTotal;
    }

    /** Healthy cards with nothing placed on them. */
    public int idleHealthyCards() {
        int n = 0;
        for (int i = 0; i < usedMilli.length; i++) {
            if (idle(i) && card(i).healthy()) {
                n++;
            }
        }
        return n;
    }

    /** How many GPU pods of each {@link Ask#tag()} run here. */
    public Map<String, Integer> gpuPodTags() {
        return gpuPodTags;
    }

    public boolean healthy(int card) {
        return availableMilli[card] >= 0;
    }

    /** Whether {@code card} is of a model {@code ask} accepts (one it names, and one its TFLOPS ask is offered). */
    public boolean acceptsModel(Ask ask, int card) {
        return ask.acceptsModel(card(card).model());
    }

    /** Whether {@code card} could take one card's worth of {@code ask} right now. */
    public boolean cardFits(Ask ask, int card) {
        int milli = availableMilli[card];
        if (milli < 0 || !acceptsModel(ask, card)) {
            return false;
        }
        if (ask.wholeCards()) {
            // a whole, idle card: compute is at most WHOLE, so all of it free means nothing placed and a whole card
            return milli == Card.WHOLE && usedCardMemory[card] == 0;
        }
        return milli >= ask.milliOn(this.card(card)) && availableMemory[card] >= ask.memoryMibOn(this.card(card));
    }

    /** The cards {@code ask} could use, in index order. */
    public int[] fittingCards(Ask ask) {
        int[] out = new int[usedMilli.length];
        int n = 0;
        for (int i = 0; i < usedMilli.length; i++) {
            if (cardFits(ask, i)) {
                out[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /** The fit check without building a message; {@link Reason#FITS} when the ask fits. */
    public Reason check(Ask ask) {
        return FitCheck.reason(ask, this);
    }

    /** The fit check with a message that says what is missing. */
    public Fit explain(Ask ask) {
        return FitCheck.explain(ask, this);
    }

    /**
     * This node with {@code placement} added.
     *
     * @throws IllegalStateException if it would exceed any capacity; the state is unchanged
     */
    public NodeState with(Grant placement) {
        return with(List.of(placement));
    }

    /**
     * This node with one pod added whose containers take {@code placements} (CPU and memory summed, one pod
     * counted).
     *
     * @throws IllegalStateException if it would exceed any capacity; the state is unchanged
     */
    public NodeState with(List<Grant> placements) {
        return with(placements, 1);
    }

    /**
     * This node with cards held by something that is no pod (a DRA claim: its pods count themselves): the shares
     * and any CPU and memory of {@code placements} are counted, the pod count is not.
     *
     * @throws IllegalStateException if it would exceed any capacity; the state is unchanged
     */
    public NodeState withHeld(List<Grant> placements) {
        return with(placements, 0);
    }

    /** This node without what {@link #withHeld} counted. */
    public NodeState withoutHeld(List<Grant> placements) {
        return without(placements, 0);
    }

    private NodeState with(List<Grant> placements, int podCount) {
        long cpu = usedCpu;
        long memory = usedMemory;
        int[] milli = usedMilli.clone();
        long[] cardMemory = usedCardMemory.clone();
        Map<String, Integer> tags = gpuPodTags;
        if (pods + podCount > node.maxPods()) {
            throw over("pods", pods + podCount, node.maxPods());
        }
        for (Grant placement : placements) {
            checkNode(placement);
            Ask ask = placement.ask();
            cpu += ask.cpuMilli();
            memory += ask.memoryMib();
            for (CardShare share : placement.shares()) {
                int i = cardIndex(share);
                Card c = card(i);
                if (ask.wholeCards() && (milli[i] != 0 || cardMemory[i] != 0)) {
                    throw new IllegalStateException(
                            "node %s: card %d is not free for a whole-card placement".formatted(node.name(), i));
                }
                milli[i] += share.milli();
                cardMemory[i] += share.memoryMib();
                if (milli[i] > c.computeMilli() || cardMemory[i] > c.memoryMib()) {
                    throw new IllegalStateException("node %s: card %d would hold %d of %d milli and %d of %d MiB"
                            .formatted(node.name(), i, milli[i], c.computeMilli(), cardMemory[i], c.memoryMib()));
                }
            }
            tags = tagged(tags, ask, +1);
        }
        if (cpu > node.cpuMilli()) {
            throw over("milli-CPU", cpu, node.cpuMilli());
        }
        if (memory > node.memoryMib()) {
            throw over("MiB of memory", memory, node.memoryMib());
        }
        return new NodeState(node, cpu, memory, pods + podCount, milli, cardMemory, tags);
    }

    /**
     * This node with {@code placement} removed.
     *
     * @throws IllegalStateException if the placement is not held here
     */
    public NodeState without(Grant placement) {
        return without(List.of(placement));
    }

    /**
     * This node with one pod removed, whose containers held {@code placements}.
     *
     * @throws IllegalStateException if they are not held here
     */
    public NodeState without(List<Grant> placements) {
        return without(placements, 1);
    }

    private NodeState without(List<Grant> placements, int podCount) {
        long cpu = usedCpu;
        long memory = usedMemory;
        int[] milli = usedMilli.clone();
        long[] cardMemory = usedCardMemory.clone();
        Map<String, Integer> tags = gpuPodTags;
        for (Grant placement : placements) {
            checkNode(placement);
            Ask ask = placement.ask();
            cpu -= ask.cpuMilli();
            memory -= ask.memoryMib();
            for (CardShare share : placement.shares()) {
                int i = cardIndex(share);
                milli[i] -= share.milli();
                cardMemory[i] -= share.memoryMib();
                if (milli[i] < 0 || cardMemory[i] < 0) {
                    throw new IllegalStateException(
                            "node %s: card %d does not hold %s".formatted(node.name(), i, share));
                }
            }
            tags = tagged(tags, ask, -1);
        }
        if (pods < podCount || cpu < 0 || memory < 0) {
            throw new IllegalStateException("node %s does not hold %s".formatted(node.name(), placements));
        }
        return new NodeState(node, cpu, memory, pods - podCount, milli, cardMemory, tags);
    }

    /**
     * The same usage on an updated description of the node (health, labels, capacity).
     *
     * @throws IllegalArgumentException if the card count changed or the usage no longer fits
     */
    public NodeState withNode(Node updated) {
        if (!updated.name().equals(node.name()) || updated.cardCount() != node.cardCount()) {
            throw new IllegalArgumentException("node %s: cannot replace %d cards by %s with %d cards"
                    .formatted(node.name(), node.cardCount(), updated.name(), updated.cardCount()));
        }
        for (int i = 0; i < usedMilli.length; i++) {
            Card c = updated.cards().get(i);
            if (usedMilli[i] > c.computeMilli() || usedCardMemory[i] > c.memoryMib()) {
                throw new IllegalArgumentException(
                        "node %s: card %d holds more than its new capacity".formatted(node.name(), i));
            }
        }
        return new NodeState(updated, usedCpu, usedMemory, pods, usedMilli, usedCardMemory, gpuPodTags);
    }

    private static Map<String, Integer> tagged(Map<String, Integer> current, Ask ask, int delta) {
        if (!ask.needsCards()) {
            return current;
        }
        Map<String, Integer> tags = new HashMap<>(current);
        tags.merge(ask.tag(), delta, Integer::sum);
        tags.values().removeIf(count -> count == 0);
        return Map.copyOf(tags);
    }

    private void checkNode(Grant placement) {
        if (!placement.node().equals(node.name())) {
            throw new IllegalArgumentException(
                    "placement for node %s applied to node %s".formatted(placement.node(), node.name()));
        }
    }

    private int cardIndex(CardShare share) {
        if (share.card() >= usedMilli.length) {
            throw new IllegalArgumentException(
                    "node %s has %d cards, no card %d".formatted(node.name(), usedMilli.length, share.card()));
        }
        return share.card();
    }

    private IllegalStateException over(String what, long wanted, long capacity) {
        return new IllegalStateException(
                "node %s would hold %d %s, capacity %d".formatted(node.name(), wanted, what, capacity));
    }

    @Override
    public String toString() {
        return "NodeState[%s cpu=%d/%d mem=%d/%d pods=%d milli=%s]"
                .formatted(
                        node.name(),
                        usedCpu,
                        node.cpuMilli(),
                        usedMemory,
                        node.memoryMib(),
                        pods,
                        java.util.Arrays.toString(usedMilli));
    }
}
