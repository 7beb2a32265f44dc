package io.elasticgpu.node.allocation;

import java.util.List;

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
}
