package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;

/**
 * An upper bound on the GPU that any placement, online or offline, can allocate to a set of pods on a cluster: the
 * optimum of a linear program that relaxes the placement problem, solved with ojAlgo. docs/simulate-bound.md states
 * the program. In short, {@code x[k][s]} pods of shape s run on nodes of {@link NodeKind} k, and the cards of kind k
 * that hold slices are cut into card configurations (multisets of slice sizes that fit one card; Gilmore and
 * Gomory's configuration LP), subject to constraints every real placement satisfies:
 *
 * <ul>
 *   <li>no more pods of a shape than arrived;
 *   <li>CPU, memory and pod count of a kind's nodes, pooled;
 *   <li>slices of each size on kind k fit the slots of that size that kind k's card configurations give;
 *   <li>cards holding slices plus the cards whole-card pods take: at most the kind's cards;
 *   <li>at most one pod asking more than half a node's cards per node.
 * </ul>
 *
 * Configurations are generated as needed (column generation): at the dual prices of the last solution, a
 * configuration whose slots are worth more than a card is found by an unbounded knapsack and added, until none is.
 * The final dual prices are then made feasible to the last rounding error (a card's price raised to its best
 * configuration's worth, a shape's price raised to cover its value) and their objective is the bound: by weak
 * duality every feasible dual solution bounds every placement, whatever tolerance the solver worked to.
 */
public final class AllocationBound {

    private static final int MAX_ROUNDS = 2_000;

    static {
        quietOjAlgo();
    }

    private AllocationBound() {}

    /**
     * Loads ojAlgo without the note it prints to standard output on a machine it has no hardware profile for (which
     * would break {@code egpu simulate --format json}), and without its presolvers: they turn a row with one variable
     * into that variable's bound, whose dual price then belongs to no row, and the bound needs every row's price.
     * This program is ojAlgo's only user in the process.
     */
    private static synchronized void quietOjAlgo() {
        java.io.PrintStream out = System.out;
        try {
            System.setOut(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
            Class.forName("org.ojalgo.OjAlgoUtils", true, AllocationBound.class.getClassLoader());
            ExpressionsBasedModel.clearPresolvers();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("ojAlgo is not on the class path", e);
        } finally {
            System.setOut(out);
        }
    }

    /** The bound, in milli-cards: no placement of {@code asks} on {@code nodes} holds more. */
    public static double upperMilli(List<Node> nodes, List<Ask> asks) {
        return solve(nodes, asks).boundMilli();
    }

    /**
     * The bound and the program's solution: how many pods of each shape it puts on each node kind, a guide for an
     * offline packer.
     *
     * @param boundMilli the bound, in milli-cards
     * @param kinds      the cluster's node kinds
     * @param onKind     per pod shape, pods of it on each kind (fractional), in the order of {@code kinds}
     * @param cuts       per kind (in the order of {@code kinds}), the card configurations the solution uses
     */
    record Solution(double boundMilli, List<NodeKind> kinds, Map<Ask, double[]> onKind, List<List<Cut>> cuts) {}

    /**
     * A card configuration of the solution and how many cards of its kind it cuts so (fractional).
     *
     * @param slots slice size (milli) to how many slots of that size one card gets
     * @param cards how many cards the solution cuts so
     */
    record Cut(Map<Integer, Integer> slots, double cards) {}

    static Solution solve(List<Node> nodes, List<Ask> asks) {
        List<NodeKind> kinds = NodeKind.of(nodes);
        return new Program(kinds, asks, false, List.of()).solve();
    }

    /**
     * The program with rows that hold for whole pods on whole nodes but not for the pooled program: per kind, at most
     * {@code j} pods per node of those asking more than a {@code j + 1}-th of its CPU, and as many of those asking
     * more than a {@code j + 1}-th of its memory (j = 1, 2, 3). Every placement satisfies them, so its optimum is a
     * bound too, but a lower one, and not the one reported: its solution guides the {@link RoundingPacker} better, as
     * fewer of the pods it puts on a kind fail to fit there node by node. Column generation starts from the card
     * configurations {@code bound}, the program's solution, uses.
     */
    static Solution solveForRounding(List<Node> nodes, List<Ask> asks, Solution bound) {
        List<NodeKind> kinds = NodeKind.of(nodes);
        List<List<Map<Integer, Integer>>> start = bound.cuts().stream()
                .map(cuts -> cuts.stream().map(Cut::slots).toList())
                .toList();
        return new Program(kinds, asks, true, start).solve();
    }

    /** The j of {@link #solveForRounding}'s rows. */
    private static final int[] FEW_PER_NODE = {1, 2, 3};

    /**
     * The program over one cluster's node kinds and one set of pods, in cards, cores and GiB: the primal with the
     * configurations generated so far as columns, and the dual prices its solution gives every row.
     */
    private static final class Program {
        private final List<NodeKind> kinds;
        private final List<Ask> distinctAsks;
        private final int[] supply;
        private final ExpressionsBasedModel model = new ExpressionsBasedModel();
        private final List<Expression> rows = new ArrayList<>();
        private final Map<String, Integer> rowIndex = new HashMap<>();
        private final Expression[] supplyRow;
        private final Expression[][] kindRow; // per kind: cpu, memory, pods, cards, large
        private final Map<Integer, Expression>[] slotRow; // per kind, per slice size
        private final int[] unit;
        private final Variable[][] x;
        private final int[][] xIndex;
        private final List<List<Map.Entry<Integer, Map<Integer, Integer>>>> configurationsOf; // variable, slots
        private int configurations;

        private final Map<Integer, Expression>[] fewRow; // per kind: j for CPU, -j for memory (solveForRounding)

        @SuppressWarnings("unchecked")
        Program(List<NodeKind> kinds, List<Ask> asks, boolean fewPerNode, List<List<Map<Integer, Integer>>> start) {
            this.kinds = kinds;
            Map<Ask, Integer> counts = new LinkedHashMap<>();
            for (Ask ask : asks) {
                if (ask.needsCards()) {
                    counts.merge(ask, 1, Integer::sum);
                }
            }
            distinctAsks = new ArrayList<>(counts.keySet());
            supply = distinctAsks.stream().mapToInt(counts::get).toArray();
            supplyRow = new Expression[distinctAsks.size()];
            for (int s = 0; s < distinctAsks.size(); s++) {
                supplyRow[s] = row("supply" + s, supply[s]);
            }
            kindRow = new Expression[kinds.size()][];
            slotRow = new Map[kinds.size()];
            fewRow = new Map[kinds.size()];
            unit = new int[kinds.size()];
            x = new Variable[kinds.size()][distinctAsks.size()];
            xIndex = new int[kinds.size()][distinctAsks.size()];
            configurationsOf = new ArrayList<>();
            for (int k = 0; k < kinds.size(); k++) {
                NodeKind kind = kinds.get(k);
                kindRow[k] = new Expression[] {
                    row("cpu" + k, kind.count() * (kind.cpuMilli() / 1000.0)),
                    row("memory" + k, kind.count() * (kind.memoryMib() / 1024.0)),
                    row("pods" + k, (double) kind.count() * kind.maxPods()),
                    row("cards" + k, kind.cardsTotal()),
                    row("large" + k, kind.count())
                };
                slotRow[k] = new LinkedHashMap<>();
                fewRow[k] = new LinkedHashMap<>();
                if (fewPerNode) {
                    for (int j : FEW_PER_NODE) {
                        fewRow[k].put(j, row("fewcpu" + k + "_" + j, (double) j * kind.count()));
                        fewRow[k].put(-j, row("fewmemory" + k + "_" + j, (double) j * kind.count()));
                    }
                }
                configurationsOf.add(new ArrayList<>());
                unit[k] = kind.computeMilli();
                for (int s = 0; s < distinctAsks.size(); s++) {
                    Ask ask = distinctAsks.get(s);
                    if (!kind.admits(ask)) {
                        continue;
                    }
                    xIndex[k][s] = model.countVariables();
                    x[k][s] = model.addVariable("x" + k + "_" + s).lower(0).weight(value(ask));
                    for (var e : column(k, s).entrySet()) {
                        e.getKey().set(x[k][s], e.getValue());
                    }
                }
                // a first configuration per slice size: as many of that size as fit one card
                for (int size : List.copyOf(slotRow[k].keySet())) {
                    addConfiguration(k, Map.of(size, kind.computeMilli() / size));
                }
                if (k < start.size()) {
                    for (Map<Integer, Integer> slots : start.get(k)) {
                        if (slotRow[k].keySet().containsAll(slots.keySet())) {
                            addConfiguration(k, slots);
                        }
                    }
                }
            }
        }

        private Expression row(String name, double upper) {
            Expression row = model.addExpression(name).upper(upper);
            rowIndex.put(name, rows.size());
            rows.add(row);
            return row;
        }

        private static double value(Ask ask) {
            return ask.totalMilli() / 1000.0;
        }

        /** Where x[k][s] counts: every row a pod of shape s on kind k takes part in, with its coefficient. */
        private Map<Expression, Double> column(int k, int s) {
            Ask ask = distinctAsks.get(s);
            NodeKind kind = kinds.get(k);
            Map<Expression, Double> column = new LinkedHashMap<>();
            column.put(supplyRow[s], 1.0);
            column.put(kindRow[k][0], ask.cpuMilli() / 1000.0);
            column.put(kindRow[k][1], ask.memoryMib() / 1024.0);
            column.put(kindRow[k][2], 1.0);
            fewRow[k].forEach((j, row) -> {
                if (j > 0 ? ask.cpuMilli() * (j + 1) > kind.cpuMilli() : ask.memoryMib() * (1 - j) > kind.memoryMib()) {
                    column.put(row, 1.0);
                }
            });
            if (ask.wholeCards()) {
                column.put(kindRow[k][3], (double) ask.cards());
                if (2 * ask.cards() > kind.cards()) {
                    column.put(kindRow[k][4], 1.0);
                }
            } else {
                int size = ask.milliPerCard();
                Expression slots = slotRow[k].get(size);
                if (slots == null) {
                    slots = row("slots" + k + "_" + size, 0);
                    slotRow[k].put(size, slots);
                    unit[k] = gcd(unit[k], size);
                }
                column.put(slots, 1.0);
            }
            return column;
        }

        private void addConfiguration(int k, Map<Integer, Integer> slots) {
            configurationsOf.get(k).add(Map.entry(model.countVariables(), Map.copyOf(slots)));
            Variable y = model.addVariable("config" + configurations++).lower(0);
            kindRow[k][3].set(y, 1);
            slots.forEach((size, n) -> slotRow[k].get(size).set(y, -n));
        }

        Solution solve() {
            for (int round = 0; round < MAX_ROUNDS; round++) {
                Optimisation.Result result = model.maximise();
                double[] price = prices(result);
                boolean added = false;
                for (int k = 0; k < kinds.size(); k++) {
                    Best best = bestConfiguration(k, price);
                    double card = price[rowIndex.get("cards" + k)];
                    if (best.worth() > card + 1e-7 * Math.max(1, card)) {
                        addConfiguration(k, best.slots());
                        added = true;
                    }
                }
                if (!added) {
                    Map<Ask, double[]> onKind = new LinkedHashMap<>();
                    for (int s = 0; s < distinctAsks.size(); s++) {
                        double[] perKind = new double[kinds.size()];
                        for (int k = 0; k < kinds.size(); k++) {
                            perKind[k] = x[k][s] == null ? 0 : Math.max(0, result.doubleValue(xIndex[k][s]));
                        }
                        onKind.put(distinctAsks.get(s), perKind);
                    }
                    List<List<Cut>> cuts = new ArrayList<>();
                    for (var ofKind : configurationsOf) {
                        List<Cut> used = new ArrayList<>();
                        for (var c : ofKind) {
                            double cards = result.doubleValue(c.getKey());
                            if (cards > 1e-9) {
                                used.add(new Cut(c.getValue(), cards));
                            }
                        }
                        cuts.add(List.copyOf(used));
                    }
                    return new Solution(1000 * certified(price), kinds, onKind, List.copyOf(cuts));
                }
            }
            throw new IllegalStateException(
                    "the bound's linear program did not settle in %d rounds".formatted(MAX_ROUNDS));
        }

        /** The dual price of every row, by row index (ojAlgo's multipliers; their sign dropped, all are >= 0). */
        private double[] prices(Optimisation.Result result) {
            if (!result.getState().isOptimal()) {
                throw new IllegalStateException("the bound's linear program ended %s instead of optimal (%d node"
                        + " kinds, %d pod shapes)".formatted(result.getState(), kinds.size(), distinctAsks.size()));
            }
            double[] price = new double[rows.size()];
            for (var m : result.getMatchedMultipliers()) {
                Integer i = rowIndex.get(m.getKey().first().getName());
                if (i != null) {
                    price[i] = Math.max(price[i], Math.abs(m.getValue().doubleValue()));
                }
            }
            return price;
        }

        private double price(double[] price, Expression row) {
            return price[rowIndex.get(row.getName())];
        }

        /**
         * The dual objective after raising prices until every dual row holds exactly: every card at least its best
         * configuration's worth, every shape's price covering its value on every kind. A feasible dual solution,
         * so by weak duality its objective bounds every placement, however the solver rounded.
         */
        private double certified(double[] price) {
            for (int k = 0; k < kinds.size(); k++) {
                int card = rowIndex.get("cards" + k);
                price[card] = Math.max(price[card], bestConfiguration(k, price).worth());
            }
            for (int s = 0; s < distinctAsks.size(); s++) {
                int alpha = rowIndex.get("supply" + s);
                for (int k = 0; k < kinds.size(); k++) {
                    if (!kinds.get(k).admits(distinctAsks.get(s))) {
                        continue;
                    }
                    double paid = 0;
                    for (var e : column(k, s).entrySet()) {
                        paid += e.getValue() * price(price, e.getKey());
                    }
                    double shortOf = value(distinctAsks.get(s)) - paid;
                    if (shortOf > 0) {
                        price[alpha] += shortOf;
                    }
                }
            }
            double bound = 0;
            for (int i = 0; i < price.length; i++) {
                var upper = rows.get(i).getUpperLimit();
                bound += price[i] * (upper == null ? 0 : upper.doubleValue());
            }
            return bound;
        }

        private record Best(double worth, Map<Integer, Integer> slots) {}

        /** The card configuration of kind k whose slots are worth most at {@code price}: an unbounded knapsack. */
        private Best bestConfiguration(int k, double[] price) {
            if (slotRow[k].isEmpty()) {
                return new Best(0, Map.of());
            }
            int top = kinds.get(k).computeMilli() / unit[k];
            int[] sizes =
                    slotRow[k].keySet().stream().mapToInt(Integer::intValue).toArray();
            double[] worthOf = new double[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                worthOf[i] = price(price, slotRow[k].get(sizes[i]));
            }
            double[] worth = new double[top + 1];
            int[] last = new int[top + 1];
            for (int c = 1; c <= top; c++) {
                worth[c] = worth[c - 1];
                last[c] = -1; // nothing added at c: as at c - 1
                for (int i = 0; i < sizes.length; i++) {
                    int w = sizes[i] / unit[k];
                    if (w <= c && worth[c - w] + worthOf[i] > worth[c]) {
                        worth[c] = worth[c - w] + worthOf[i];
                        last[c] = i;
                    }
                }
            }
            Map<Integer, Integer> slots = new LinkedHashMap<>();
            for (int c = top; c > 0; ) {
                if (last[c] < 0) {
                    c--;
                } else {
                    slots.merge(sizes[last[c]], 1, Integer::sum);
                    c -= sizes[last[c]] / unit[k];
                }
            }
            return new Best(worth[top], slots);
        }
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
