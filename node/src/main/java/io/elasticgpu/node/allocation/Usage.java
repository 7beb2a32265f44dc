package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;

/** Memory and compute held on each card of the node, and whether more fits. Mutable, confined to one call. */
final class Usage {

    private final CardTable cards;
    private final long[] memory;
    private final int[] milli;

    Usage(CardTable cards) {
        this.cards = cards;
        this.memory = new long[cards.size()];
        this.milli = new int[cards.size()];
    }

    void add(List<Share> shares) {
        for (Share s : shares) {
            if (s.card() >= 0 && s.card() < memory.length) {
                memory[s.card()] += s.memoryMib();
                milli[s.card()] += s.milli();
            }
        }
    }

    /** Why {@code shares} do not fit on top of what is held, or empty when they do. */
    String overflow(List<Share> shares) {
        for (Share s : shares) {
            int c = s.card();
            if (c < 0 || c >= memory.length) {
                return "card %d does not exist on this node (%d cards)".formatted(c, memory.length);
            }
            if (memory[c] + s.memoryMib() > cards.memoryMib(c)) {
                return "card %d would hold %d of %d MiB".formatted(c, memory[c] + s.memoryMib(), cards.memoryMib(c));
            }
            if (milli[c] + s.milli() > 1000) {
                return "card %d would hold %d%% of its compute".formatted(c, (milli[c] + s.milli()) / 10);
            }
        }
        return "";
    }
}
