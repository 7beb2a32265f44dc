package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/** What allocation needs to know about the node's cards and the device ids the agent advertises. */
public interface CardTable {

    /** Number of cards. */
    int size();

    String uuid(int card);

    long memoryMib(int card);

    /** Whether {@code resource} hands out whole cards (its device ids are cards) rather than slices. */
    boolean wholeCards(String resource);

    /**
     * The card a device id of ours belongs to.
     *
     * @throws AllocationException when the id is not one the agent advertised
     */
    int cardOf(String deviceId);

    /** The cards named by {@code ids}, each once, ascending. */
    default List<Integer> cardsOf(List<String> ids) {
        return ids.stream().map(this::cardOf).distinct().sorted().toList();
    }

    /**
     * What a container kubelet lists with our devices holds when no answer of this agent's run covers it: its plan,
     * except that whole cards are the cards kubelet's device ids name. An earlier run may have given it the plan of
     * another waiting pod with the same ask (plans are a pool) and been killed before it recorded that; counting the
     * plan's cards then would leave the cards it really holds free and refuse the pod whose plan it took. A slice's
     * ids only count blocks, so its card stays the plan's.
     *
     * @param plan      the container's planned shares
     * @param listedIds the device ids kubelet lists for it, by resource
     */
    default List<Share> listedHolds(List<Share> plan, Map<String, List<String>> listedIds) {
        for (Map.Entry<String, List<String>> e : listedIds.entrySet()) {
            if (!wholeCards(e.getKey()) || e.getValue().isEmpty()) {
                continue;
            }
            List<Integer> held;
            try {
                held = cardsOf(e.getValue());
            } catch (AllocationException notOurs) {
                return plan;
            }
            List<Share> byCard =
                    plan.stream().sorted(Comparator.comparingInt(Share::card)).toList();
            if (held.size() != byCard.size()
                    || held.equals(byCard.stream().map(Share::card).toList())) {
                return plan;
            }
            return IntStream.range(0, held.size())
                    .mapToObj(i -> byCard.get(i).movedTo(held.get(i), uuid(held.get(i))))
                    .toList();
        }
        return plan;
    }
}
