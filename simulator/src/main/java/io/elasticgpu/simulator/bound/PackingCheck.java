package io.elasticgpu.simulator.bound;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a {@link Packing} from scratch, sharing no state with the packer: every pod placed at most once and as it
 * asked; every card of an accepted model, healthy, holding no more compute and device memory than it has, and a
 * whole-card pod's card nobody else's; every node within its CPU, memory and pod count.
 */
public final class PackingCheck {

    private PackingCheck() {}

    /** What is wrong with {@code packing} of {@code asks} on {@code nodes}; empty when it is feasible. */
    public static List<String> problems(List<Node> nodes, List<Ask> asks, Packing packing) {
        List<String> problems = new ArrayList<>();
        Map<String, Node> byName = new HashMap<>();
        nodes.forEach(n -> byName.put(n.name(), n));
        Set<Integer> seen = new HashSet<>();
        Map<String, long[]> nodeUse = new HashMap<>(); // cpu, memory, pods
        Map<String, long[]> cardMilli = new HashMap<>();
        Map<String, long[]> cardMemory = new HashMap<>();
        Map<String, boolean[]> cardWhole = new HashMap<>();
        Map<String, int[]> cardPods = new HashMap<>();
        for (Packing.Placed p : packing.placed()) {
            if (p.pod() < 0 || p.pod() >= asks.size()) {
                problems.add("pod %d is not one of the %d pods".formatted(p.pod(), asks.size()));
                continue;
            }
            if (!seen.add(p.pod())) {
                problems.add("pod %d is placed twice".formatted(p.pod()));
            }
            Ask ask = asks.get(p.pod());
            if (!ask.equals(p.grant().ask())) {
                problems.add("pod %d is granted for another ask than its own".formatted(p.pod()));
            }
            Node node = byName.get(p.grant().node());
            if (node == null) {
                problems.add("pod %d is on %s, which is not a node"
                        .formatted(p.pod(), p.grant().node()));
                continue;
            }
            String name = node.name();
            long[] use = nodeUse.computeIfAbsent(name, n -> new long[3]);
            use[0] += ask.cpuMilli();
            use[1] += ask.memoryMib();
            use[2]++;
            long[] milli = cardMilli.computeIfAbsent(name, n -> new long[node.cardCount()]);
            long[] memory = cardMemory.computeIfAbsent(name, n -> new long[node.cardCount()]);
            boolean[] whole = cardWhole.computeIfAbsent(name, n -> new boolean[node.cardCount()]);
            int[] podsOnCard = cardPods.computeIfAbsent(name, n -> new int[node.cardCount()]);
            if (p.grant().shares().size() != ask.cards()) {
                problems.add("pod %d asks %d cards and holds %d"
                        .formatted(p.pod(), ask.cards(), p.grant().shares().size()));
            }
            Set<Integer> cards = new HashSet<>();
            for (CardShare share : p.grant().shares()) {
                int i = share.card();
                if (i < 0 || i >= node.cardCount() || !cards.add(i)) {
                    problems.add("pod %d holds card %d of %s twice or out of range".formatted(p.pod(), i, name));
                    continue;
                }
                Card card = node.cards().get(i);
                if (!card.healthy() || !ask.acceptsModel(card.model())) {
                    problems.add("pod %d is on card %d of %s, %s, which it cannot use"
                            .formatted(p.pod(), i, name, card.model()));
                }
                milli[i] += ask.wholeCards() ? card.computeMilli() : ask.milliPerCard();
                memory[i] += ask.wholeCards() ? card.memoryMib() : ask.memoryMibOn(card);
                whole[i] |= ask.wholeCards();
                podsOnCard[i]++;
            }
        }
        for (var e : nodeUse.entrySet()) {
            Node node = byName.get(e.getKey());
            long[] use = e.getValue();
            if (use[0] > node.cpuMilli() || use[1] > node.memoryMib() || use[2] > node.maxPods()) {
                problems.add("node %s holds %d milli-CPU, %d MiB, %d pods; it has %d, %d, %d"
                        .formatted(
                                node.name(),
                                use[0],
                                use[1],
                                use[2],
                                node.cpuMilli(),
                                node.memoryMib(),
                                node.maxPods()));
            }
            for (int i = 0; i < node.cardCount(); i++) {
                Card card = node.cards().get(i);
                long milli = cardMilli.get(node.name())[i];
                long memory = cardMemory.get(node.name())[i];
                if (milli > card.computeMilli() || memory > card.memoryMib()) {
                    problems.add("card %d of %s holds %d milli and %d MiB; it has %d and %d"
                            .formatted(i, node.name(), milli, memory, card.computeMilli(), card.memoryMib()));
                }
                if (cardWhole.get(node.name())[i] && cardPods.get(node.name())[i] > 1) {
                    problems.add("card %d of %s is a pod's whole card and holds %d pods"
                            .formatted(i, node.name(), cardPods.get(node.name())[i]));
                }
            }
        }
        return problems;
    }

    /** Throws when {@code packing} is not feasible, naming what is wrong. */
    public static void requireFeasible(List<Node> nodes, List<Ask> asks, Packing packing) {
        List<String> problems = problems(nodes, asks, packing);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("infeasible packing (%d problems): %s"
                    .formatted(problems.size(), String.join("; ", problems.subList(0, Math.min(5, problems.size())))));
        }
    }
}
