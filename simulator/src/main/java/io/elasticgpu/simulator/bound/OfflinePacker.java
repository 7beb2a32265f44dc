package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * An offline packing: with every pod known in advance, pods go in decreasing order of what they ask per card (whole
 * cards first, the most cards first), each to the tightest place it fits: a slice to the card whose free compute it
 * leaves smallest, whole cards to the node whose idle cards they leave fewest. What fits nowhere is left out. The
 * result is a lower bound on the best placement; {@link PackingCheck} checks it.
 */
public final class OfflinePacker {

    private final List<Node> nodes;
    private final long[] freeCpu;
    private final long[] freeMemory;
    private final int[] freePods;
    private final int[][] freeMilli; // -1 for an unhealthy card
    private final long[][] freeCardMemory;
    private final int[] idleCards;
    private int[] kind; // each node's kind, when guided
    private Map<Ask, int[]> quota; // pods of a shape each kind may still take in the guided pass; null: any
    private boolean[] open; // the nodes a pod may go to now; null: any

    OfflinePacker(List<Node> nodes) {
        this.nodes = List.copyOf(nodes);
        int n = nodes.size();
        freeCpu = new long[n];
        freeMemory = new long[n];
        freePods = new int[n];
        freeMilli = new int[n][];
        freeCardMemory = new long[n][];
        idleCards = new int[n];
        for (int i = 0; i < n; i++) {
            Node node = nodes.get(i);
            freeCpu[i] = node.cpuMilli();
            freeMemory[i] = node.memoryMib();
            freePods[i] = node.maxPods();
            freeMilli[i] = new int[node.cardCount()];
            freeCardMemory[i] = new long[node.cardCount()];
            for (int c = 0; c < node.cardCount(); c++) {
                Card card = node.cards().get(c);
                freeMilli[i][c] = card.healthy() ? card.computeMilli() : -1;
                freeCardMemory[i][c] = card.memoryMib();
                if (card.healthy() && card.computeMilli() == Card.WHOLE) {
                    idleCards[i]++;
                }
            }
        }
    }

    /** Packs {@code asks} on the empty {@code nodes}. */
    public static Packing pack(List<Node> nodes, List<Ask> asks) {
        return pack(nodes, asks, null);
    }

    /**
     * Packs {@code asks} on the empty {@code nodes} in two passes: first each pod only on a node kind where the
     * bound's solution still has room for its shape (rounded down), then what is left anywhere.
     */
    static Packing pack(List<Node> nodes, List<Ask> asks, AllocationBound.Solution guide) {
        OfflinePacker packer = new OfflinePacker(nodes);
        if (guide != null) {
            packer.guide(guide);
        }
        List<Integer> sorted =
                decreasing(asks, IntStream.range(0, asks.size()).boxed().toList());
        List<Packing.Placed> placed = new ArrayList<>();
        List<Integer> left = packer.placeAll(asks, sorted, placed);
        if (packer.quota != null) {
            packer.quota = null;
            packer.placeAll(asks, left, placed);
        }
        return new Packing(placed);
    }

    /**
     * The pods of {@code indexes} that ask cards, in the order the packer takes them: decreasing milli per card (whole
     * cards first), then cards, then CPU; ties by index.
     */
    static List<Integer> decreasing(List<Ask> asks, List<Integer> indexes) {
        Comparator<Integer> order = Comparator.<Integer>comparingInt(
                        i -> asks.get(i).milliPerCard())
                .thenComparingInt(i -> asks.get(i).cards())
                .thenComparingLong(i -> asks.get(i).cpuMilli())
                .reversed()
                .thenComparingInt(i -> i);
        return indexes.stream()
                .filter(i -> asks.get(i).needsCards())
                .sorted(order)
                .toList();
    }

    /**
     * Places the pods {@code indexes} of {@code asks} in that order, each where it fits tightest, adding each placed
     * one to {@code placed}; returns those that fit nowhere.
     */
    List<Integer> placeAll(List<Ask> asks, List<Integer> indexes, List<Packing.Placed> placed) {
        List<Integer> left = new ArrayList<>();
        for (int i : indexes) {
            Grant grant = place(asks.get(i));
            if (grant != null) {
                placed.add(new Packing.Placed(i, grant));
            } else {
                left.add(i);
            }
        }
        return left;
    }

    /** Limits where pods go to the nodes marked in {@code nodes} (by index); null lifts the limit. */
    void openOnly(boolean[] nodes) {
        open = nodes;
    }

    /** Places slice {@code ask} on card {@code c} of node {@code n} if it fits there; null if not. */
    Grant placeSliceOn(Ask ask, int n, int c) {
        Card card = nodes.get(n).cards().get(c);
        if (!nodeFits(ask, n)
                || freeMilli[n][c] < ask.milliPerCard()
                || freeCardMemory[n][c] < ask.memoryMibOn(card)
                || !ask.acceptsModel(card.model())) {
            return null;
        }
        List<CardShare> shares = List.of(new CardShare(c, ask.milliPerCard(), ask.memoryMibOn(card)));
        take(ask, n, shares);
        return new Grant(nodes.get(n).name(), ask, shares);
    }

    /** Places whole-card {@code ask} on the first idle cards of node {@code n} that it may use; null if none. */
    Grant placeWholeOn(Ask ask, int n) {
        if (!nodeFits(ask, n)) {
            return null;
        }
        List<CardShare> shares = new ArrayList<>();
        for (int c = 0; c < freeMilli[n].length && shares.size() < ask.cards(); c++) {
            if (wholeFits(ask, n, c)) {
                Card card = nodes.get(n).cards().get(c);
                shares.add(new CardShare(c, card.computeMilli(), card.memoryMib()));
            }
        }
        if (shares.size() < ask.cards()) {
            return null;
        }
        take(ask, n, shares);
        return new Grant(nodes.get(n).name(), ask, shares);
    }

    /** Node {@code n}'s free CPU (milli), host memory (MiB) and pods. */
    long[] freeHost(int n) {
        return new long[] {freeCpu[n], freeMemory[n], freePods[n]};
    }

    /** Whether card {@code c} of node {@code n} is healthy and nobody holds any of it. */
    boolean idle(int n, int c) {
        Card card = nodes.get(n).cards().get(c);
        return card.healthy() && freeMilli[n][c] == card.computeMilli() && freeCardMemory[n][c] == card.memoryMib();
    }

    private void guide(AllocationBound.Solution guide) {
        List<NodeKind> kinds = guide.kinds();
        Map<NodeKind, Integer> index = new HashMap<>();
        for (int k = 0; k < kinds.size(); k++) {
            index.put(kinds.get(k).withCount(1), k);
        }
        kind = new int[nodes.size()];
        for (int n = 0; n < nodes.size(); n++) {
            kind[n] = index.get(NodeKind.of(List.of(nodes.get(n))).getFirst());
        }
        quota = new HashMap<>();
        guide.onKind().forEach((shape, perKind) -> {
            int[] q = new int[perKind.length];
            for (int k = 0; k < q.length; k++) {
                q[k] = (int) Math.floor(perKind[k] + 1e-6);
            }
            quota.put(shape, q);
        });
    }

    private boolean allowed(Ask ask, int n) {
        if (quota == null) {
            return true;
        }
        int[] q = quota.get(ask);
        return q != null && q[kind[n]] > 0;
    }

    Grant place(Ask ask) {
        return ask.wholeCards() ? placeWhole(ask) : placeSlice(ask);
    }

    private boolean nodeFits(Ask ask, int n) {
        return (open == null || open[n])
                && allowed(ask, n)
                && freePods[n] >= 1
                && freeCpu[n] >= ask.cpuMilli()
                && freeMemory[n] >= ask.memoryMib();
    }

    private boolean wholeFits(Ask ask, int n, int c) {
        Card card = nodes.get(n).cards().get(c);
        return freeMilli[n][c] == Card.WHOLE
                && freeCardMemory[n][c] == card.memoryMib()
                && ask.acceptsModel(card.model());
    }

    /**
     * How far apart, after placing {@code ask} on node {@code n}, the node's free CPU or memory and its free GPU
     * are as shares of its capacity (0 to 1,000,000): pods go where the node stays balanced, so that no node runs
     * out of CPU while cards stay idle.
     */
    private long imbalance(Ask ask, int n, int milli) {
        Node node = nodes.get(n);
        double cpu = node.cpuMilli() == 0 ? 0 : (double) (freeCpu[n] - ask.cpuMilli()) / node.cpuMilli();
        long freeGpu = -milli;
        for (int f : freeMilli[n]) {
            freeGpu += Math.max(0, f);
        }
        double gpu = node.cardCount() == 0 ? 0 : (double) freeGpu / (node.cardCount() * (double) Card.WHOLE);
        double memory = node.memoryMib() == 0 ? 0 : (double) (freeMemory[n] - ask.memoryMib()) / node.memoryMib();
        return (long) (Math.max(Math.abs(cpu - gpu), Math.abs(memory - gpu)) * 1_000_000);
    }

    private Grant placeWhole(Ask ask) {
        int best = -1;
        long bestKey = Long.MAX_VALUE;
        for (int n = 0; n < nodes.size(); n++) {
            if (idleCards[n] < ask.cards() || !nodeFits(ask, n)) {
                continue;
            }
            int fitting = 0;
            for (int c = 0; c < freeMilli[n].length; c++) {
                if (wholeFits(ask, n, c)) {
                    fitting++;
                }
            }
            if (fitting < ask.cards()) {
                continue;
            }
            long key = (long) (fitting - ask.cards()) << 32 | imbalance(ask, n, ask.cards() * Card.WHOLE);
            if (key < bestKey) {
                bestKey = key;
                best = n;
            }
        }
        return best < 0 ? null : placeWholeOn(ask, best); // best fits and has enough idle cards: never null
    }

    private Grant placeSlice(Ask ask) {
        int bestNode = -1;
        int bestCard = -1;
        long bestKey = Long.MAX_VALUE;
        for (int n = 0; n < nodes.size(); n++) {
            if (!nodeFits(ask, n)) {
                continue;
            }
            for (int c = 0; c < freeMilli[n].length; c++) {
                Card card = nodes.get(n).cards().get(c);
                int left = freeMilli[n][c] - ask.milliPerCard();
                if (left < 0 || freeCardMemory[n][c] < ask.memoryMibOn(card) || !ask.acceptsModel(card.model())) {
                    continue;
                }
                long key = (long) left << 32 | imbalance(ask, n, ask.milliPerCard());
                if (key < bestKey) {
                    bestKey = key;
                    bestNode = n;
                    bestCard = c;
                }
            }
        }
        if (bestNode < 0) {
            return null;
        }
        Card card = nodes.get(bestNode).cards().get(bestCard);
        List<CardShare> shares = List.of(new CardShare(bestCard, ask.milliPerCard(), ask.memoryMibOn(card)));
        take(ask, bestNode, shares);
        return new Grant(nodes.get(bestNode).name(), ask, shares);
    }

    private void take(Ask ask, int n, List<CardShare> shares) {
        if (quota != null) {
            quota.get(ask)[kind[n]]--;
        }
        freeCpu[n] -= ask.cpuMilli();
        freeMemory[n] -= ask.memoryMib();
        freePods[n]--;
        for (CardShare share : shares) {
            int c = share.card();
            if (freeMilli[n][c] == Card.WHOLE) {
                idleCards[n]--;
            }
            freeMilli[n][c] -= share.milli();
            freeCardMemory[n][c] -= share.memoryMib();
        }
    }
}
