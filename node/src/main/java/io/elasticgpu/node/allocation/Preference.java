package io.elasticgpu.node.allocation;

import io.elasticgpu.core.model.Topology;
import io.elasticgpu.core.policy.CardChoice;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Which of the available device ids to prefer, given the cards a container should get. Pure. */
final class Preference {

    private Preference() {}

    static List<String> of(
            CardTable cards,
            String resource,
            List<String> available,
            List<String> mustInclude,
            int size,
            List<Integer> planned,
            Topology topology) {
        Map<Integer, List<String>> byCard = new TreeMap<>();
        for (String id : available) {
            byCard.computeIfAbsent(cards.cardOf(id), c -> new ArrayList<>()).add(id);
        }
        List<Integer> target = planned;
        if (target.isEmpty() && cards.wholeCards(resource) && byCard.size() >= size) {
            int[] offered = byCard.keySet().stream()
                    .mapToInt(Integer::intValue)
                    .sorted()
                    .toArray();
            target = java.util.Arrays.stream(CardChoice.bestLinked(offered, size, topology, card -> 0))
                    .boxed()
                    .toList();
        }
        LinkedHashSet<String> out = new LinkedHashSet<>(mustInclude);
        // Round-robin over the target cards so that a slice on each of N cards takes ids of each.
        for (int round = 0; out.size() < size && !target.isEmpty(); round++) {
            boolean any = false;
            for (int card : target) {
                List<String> ids = byCard.getOrDefault(card, List.of());
                if (round < ids.size() && out.size() < size) {
                    any |= out.add(ids.get(round)) || true;
                }
            }
            if (!any) {
                break;
            }
        }
        for (String id : available) {
            if (out.size() >= size) {
                break;
            }
            out.add(id);
        }
        return List.copyOf(out).subList(0, Math.min(size, out.size()));
    }
}
