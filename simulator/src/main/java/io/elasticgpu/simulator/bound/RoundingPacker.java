package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An offline packing that rounds the bound's solution ({@link AllocationBound.Solution}) down to a real placement,
 * node kind by node kind:
 *
 * <ol>
 *   <li>the kind's card configurations, each used as many times as the solution's count rounded down, and their
 *       slots filled with arrived pods of the slot's size, as many of each shape as the solution puts on the kind
 *       (rounded down): the pods asking most CPU or memory first, each in the card whose pods ask least so far;
 *   <li>these cards and the kind's whole-card pods (each shape's count rounded down) onto the kind's nodes, most cards
 *       first, each to a node it fits (cards, CPU, memory, pods); a card that fits no node sheds its pod asking most
 *       CPU or memory until it fits. Planned six ways (ordered by CPU or memory asked, or by GPU per share of the node
 *       taken; each to the node left most balanced, the tightest, or the one whose free resources are most like the
 *       ask), and the plan that places most GPU is carried out;
 *   <li>every pod not placed yet, largest first, where it fits tightest ({@link OfflinePacker}'s best fit).
 * </ol>
 *
 * Each pod is placed only where it fits its node's CPU, memory and pod count and its card's compute and device
 * memory; {@link PackingCheck} checks the result all the same.
 */
final class RoundingPacker {

    private static final double EPSILON = 1e-6;

    private final List<Node> nodes;
    private final List<Ask> asks;
    private final OfflinePacker packer;
    private final List<Packing.Placed> placed = new ArrayList<>();
    private final Set<Integer> done = new HashSet<>();
    private final Map<Ask, Deque<Integer>> waiting = new LinkedHashMap<>(); // pods of each shape not placed yet

    private RoundingPacker(List<Node> nodes, List<Ask> asks) {
        this.nodes = nodes;
        this.asks = asks;
        this.packer = new OfflinePacker(nodes);
        for (int i = 0; i < asks.size(); i++) {
            if (asks.get(i).needsCards()) {
                waiting.computeIfAbsent(asks.get(i), a -> new ArrayDeque<>()).add(i);
            }
        }
    }

    /** Packs {@code asks} on the empty {@code nodes} by rounding {@code solution}, the bound's for them. */
    static Packing pack(List<Node> nodes, List<Ask> asks, AllocationBound.Solution solution) {
        RoundingPacker rounding = new RoundingPacker(List.copyOf(nodes), asks);
        List<List<Integer>> nodesOf = nodesByKind(nodes, solution.kinds());
        for (int k = 0; k < solution.kinds().size(); k++) {
            if (!nodesOf.get(k).isEmpty()) {
                rounding.packKind(k, nodesOf.get(k), solution);
            }
        }
        List<Integer> left = new ArrayList<>();
        for (int i = 0; i < asks.size(); i++) {
            if (!rounding.done.contains(i)) {
                left.add(i);
            }
        }
        rounding.packer.placeAll(asks, OfflinePacker.decreasing(asks, left), rounding.placed);
        return new Packing(rounding.placed);
    }

    /** The indexes of {@code nodes} of each of {@code kinds}, in the order of {@code kinds}. */
    private static List<List<Integer>> nodesByKind(List<Node> nodes, List<NodeKind> kinds) {
        Map<NodeKind, Integer> index = new HashMap<>();
        for (int k = 0; k < kinds.size(); k++) {
            index.put(kinds.get(k).withCount(1), k);
        }
        List<List<Integer>> nodesOf = new ArrayList<>();
        kinds.forEach(k -> nodesOf.add(new ArrayList<>()));
        for (int n = 0; n < nodes.size(); n++) {
            nodesOf.get(index.get(NodeKind.of(List.of(nodes.get(n))).getFirst()))
                    .add(n);
        }
        return nodesOf;
    }

    /**
     * What goes onto one node as a unit: a whole-card pod (its cards) or one card cut by a configuration with the
     * pods in its slots.
     */
    private final class Bundle {
        final int cards;
        final boolean whole;
        final Map<Integer, Integer> freeSlots; // slice size to slots still empty; empty for a whole-card pod
        final List<Integer> members = new ArrayList<>();
        long cpu;
        long memory;

        Bundle(int cards, boolean whole, Map<Integer, Integer> slots) {
            this.cards = cards;
            this.whole = whole;
            this.freeSlots = new HashMap<>(slots);
        }

        void add(int pod) {
            members.add(pod);
            cpu += asks.get(pod).cpuMilli();
            memory += asks.get(pod).memoryMib();
        }
    }

    /** How many pods of each shape the solution puts on kind {@code k}, rounded down, at most those waiting. */
    private Map<Ask, Integer> quota(int k, AllocationBound.Solution solution) {
        Map<Ask, Integer> quota = new LinkedHashMap<>();
        solution.onKind().forEach((shape, perKind) -> {
            int n = (int) Math.floor(perKind[k] + EPSILON);
            if (n > 0 && waiting.containsKey(shape)) {
                quota.put(shape, Math.min(n, waiting.get(shape).size()));
            }
        });
        return quota;
    }

    private void packKind(int k, List<Integer> kindNodes, AllocationBound.Solution solution) {
        Node typical = nodes.get(kindNodes.getFirst());
        List<Bundle> bundles = new ArrayList<>();
        for (AllocationBound.Cut cut : solution.cuts().get(k)) {
            for (int i = 0; i < (int) Math.floor(cut.cards() + EPSILON); i++) {
                bundles.add(new Bundle(1, false, cut.slots()));
            }
        }
        List<Bundle> cut = List.copyOf(bundles);
        List<Integer> slices = new ArrayList<>();
        quota(k, solution).forEach((shape, n) -> {
            for (int i : take(shape, n)) {
                if (shape.wholeCards()) {
                    Bundle bundle = new Bundle(shape.cards(), true, Map.of());
                    bundle.add(i);
                    bundles.add(bundle);
                } else {
                    slices.add(i);
                }
            }
        });
        // 1. slots filled: the pods asking most first, each in the card whose pods ask least so far
        slices.sort(Comparator.<Integer>comparingDouble(i -> hostShare(asks.get(i), typical))
                .reversed()
                .thenComparingInt(i -> i));
        for (int i : slices) {
            int size = asks.get(i).milliPerCard();
            Bundle lightest = null;
            for (Bundle bundle : cut) {
                if (bundle.freeSlots.getOrDefault(size, 0) > 0
                        && (lightest == null || load(bundle, typical) < load(lightest, typical))) {
                    lightest = bundle;
                }
            }
            if (lightest == null || !asks.get(i).sharesOneCard()) {
                putBack(i);
            } else {
                lightest.freeSlots.merge(size, -1, Integer::sum);
                lightest.add(i);
            }
        }
        // 2. cards and whole-card pods onto nodes, most cards first: the plan of six that places most
        bundles.removeIf(b -> b.members.isEmpty());
        List<Bundle> byLoad = new ArrayList<>(bundles);
        byLoad.sort(Comparator.<Bundle>comparingInt(b -> b.cards)
                .thenComparingDouble(b -> load(b, typical))
                .reversed());
        List<Bundle> byWorth = new ArrayList<>(bundles);
        byWorth.sort(Comparator.<Bundle>comparingInt(b -> b.cards)
                .thenComparingDouble(b -> worth(b, typical))
                .reversed());
        Plan best = null;
        for (List<Bundle> order : List.of(byLoad, byWorth)) {
            for (Rule rule : Rule.values()) {
                Plan plan = plan(order, kindNodes, rule);
                if (best == null || plan.milli() > best.milli()) {
                    best = plan;
                }
            }
        }
        for (int b = 0; b < best.order().size(); b++) {
            Bundle bundle = best.order().get(b);
            List<Integer> kept = best.kept().get(b);
            bundle.members.stream().filter(i -> !kept.contains(i)).forEach(this::putBack);
            if (best.nodeOf()[b] >= 0) {
                place(bundle.whole, kept, kindNodes.get(best.nodeOf()[b]));
            }
        }
    }

    /** What pod {@code ask} takes of {@code node}'s CPU or memory, the larger share. */
    private static double hostShare(Ask ask, Node node) {
        double cpu = node.cpuMilli() == 0 ? 0 : (double) ask.cpuMilli() / node.cpuMilli();
        double memory = node.memoryMib() == 0 ? 0 : (double) ask.memoryMib() / node.memoryMib();
        return Math.max(cpu, memory);
    }

    /** The GPU {@code bundle} holds per share of {@code node} it takes (of cards, CPU or memory, the largest). */
    private double worth(Bundle bundle, Node node) {
        long milli =
                bundle.members.stream().mapToLong(i -> asks.get(i).totalMilli()).sum();
        double cards = (double) bundle.cards / Math.max(1, node.cardCount());
        return milli / Math.max(cards, load(bundle, node));
    }

    private static double load(Bundle bundle, Node node) {
        double cpu = node.cpuMilli() == 0 ? 0 : (double) bundle.cpu / node.cpuMilli();
        double memory = node.memoryMib() == 0 ? 0 : (double) bundle.memory / node.memoryMib();
        return Math.max(cpu, memory);
    }

    /** How a bundle's node is chosen among those it fits. */
    private enum Rule {
        /** The node left with free CPU, memory and cards closest in share. */
        BALANCE,
        /** The node left with least free CPU, memory and cards, in shares summed. */
        TIGHTEST,
        /** The node whose free CPU, memory and cards, in shares, are most like the bundle's ask (dot product). */
        ALIKE
    }

    /**
     * Where each bundle goes ({@code nodeOf}, an index into the kind's nodes, -1 for none) and which of its pods
     * ({@code kept}) under one rule, and the GPU it places.
     */
    private record Plan(List<Bundle> order, int[] nodeOf, List<List<Integer>> kept, long milli) {}

    /**
     * Places {@code bundles} in turn on {@code kindNodes} (on paper) by {@code rule}; a card that fits no node sheds
     * its pod asking most CPU or memory until it fits.
     */
    private Plan plan(List<Bundle> bundles, List<Integer> kindNodes, Rule rule) {
        int count = kindNodes.size();
        long[][] free = new long[count][]; // cards, cpu, memory, pods
        for (int j = 0; j < count; j++) {
            int n = kindNodes.get(j);
            long[] host = packer.freeHost(n);
            long cards = 0;
            for (int c = 0; c < nodes.get(n).cardCount(); c++) {
                cards += packer.idle(n, c) ? 1 : 0;
            }
            free[j] = new long[] {cards, host[0], host[1], host[2]};
        }
        Node typical = nodes.get(kindNodes.getFirst());
        double[] capacity = {
            Math.max(1, typical.cardCount()),
            Math.max(1, typical.cpuMilli()),
            Math.max(1, typical.memoryMib()),
            Math.max(1, typical.maxPods())
        };
        int[] nodeOf = new int[bundles.size()];
        List<List<Integer>> kept = new ArrayList<>();
        long milli = 0;
        for (int b = 0; b < bundles.size(); b++) {
            Bundle bundle = bundles.get(b);
            List<Integer> members = new ArrayList<>(bundle.members);
            long[] ask = {bundle.cards, bundle.cpu, bundle.memory, members.size()};
            int node = choose(free, ask, capacity, rule);
            while (node < 0 && !bundle.whole && members.size() > 1) {
                int largest = members.stream()
                        .max(Comparator.comparingDouble(i -> hostShare(asks.get(i), typical)))
                        .orElseThrow();
                members.remove(Integer.valueOf(largest));
                ask[1] -= asks.get(largest).cpuMilli();
                ask[2] -= asks.get(largest).memoryMib();
                ask[3]--;
                node = choose(free, ask, capacity, rule);
            }
            nodeOf[b] = node;
            if (node < 0) {
                members.clear();
            } else {
                for (int d = 0; d < ask.length; d++) {
                    free[node][d] -= ask[d];
                }
                for (int i : members) {
                    milli += asks.get(i).totalMilli();
                }
            }
            kept.add(members);
        }
        return new Plan(bundles, nodeOf, kept, milli);
    }

    /** The index in {@code free} of the node {@code rule} picks for {@code ask} among those it fits; -1 if none. */
    private static int choose(long[][] free, long[] ask, double[] capacity, Rule rule) {
        int best = -1;
        double bestKey = Double.MAX_VALUE;
        for (int j = 0; j < free.length; j++) {
            long[] f = free[j];
            if (f[0] < ask[0] || f[1] < ask[1] || f[2] < ask[2] || f[3] < ask[3]) {
                continue;
            }
            double cards = (f[0] - ask[0]) / capacity[0];
            double cpu = (f[1] - ask[1]) / capacity[1];
            double memory = (f[2] - ask[2]) / capacity[2];
            double key = switch (rule) {
                case BALANCE -> Math.max(Math.abs(cpu - cards), Math.abs(memory - cards));
                case TIGHTEST -> cards + cpu + memory;
                case ALIKE ->
                    -(ask[0] / capacity[0] * f[0] / capacity[0]
                            + ask[1] / capacity[1] * f[1] / capacity[1]
                            + ask[2] / capacity[2] * f[2] / capacity[2]);
            };
            if (key < bestKey) {
                bestKey = key;
                best = j;
            }
        }
        return best;
    }

    /** Places pods {@code members} on node {@code n}: each its whole cards, or all on one idle card. */
    private void place(boolean whole, List<Integer> members, int n) {
        int card = -1;
        if (!whole) {
            for (int c = 0; c < nodes.get(n).cardCount() && card < 0; c++) {
                if (packer.idle(n, c)) {
                    card = c;
                }
            }
        }
        for (int i : members) {
            if (!whole && card < 0) {
                putBack(i);
                continue;
            }
            Grant grant = whole ? packer.placeWholeOn(asks.get(i), n) : packer.placeSliceOn(asks.get(i), n, card);
            if (grant == null) {
                putBack(i);
            } else {
                placed.add(new Packing.Placed(i, grant));
                done.add(i);
            }
        }
    }

    private List<Integer> take(Ask ask, int n) {
        Deque<Integer> queue = waiting.get(ask);
        List<Integer> taken = new ArrayList<>();
        for (int j = 0; j < n && !queue.isEmpty(); j++) {
            taken.add(queue.poll());
        }
        return taken;
    }

    private void putBack(int i) {
        waiting.get(asks.get(i)).add(i);
    }
}
