package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The paper's GpuPacking baseline, three tiers from best to worst: use partly used cards
 * ({@code max(100 - sum(floor(g*100/1000))/10, 50)} over the cards taken), use free cards on a used node
 * ({@code max(50 - free cards taken, 33)}), use a node nothing runs on ({@code max(33 - K, K)}). CPU-only pods score
 * 0 everywhere. Cards by best fit.
 */
public final class GpuPackingPolicy implements Policy {

    @Override
    public String name() {
        return "gpu-packing";
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        if (!ask.needsCards()) {
            return new Choice(0, new int[0]);
        }
        return new Choice(score(ask, s), CardChoice.tightest(ask, s));
    }

    private static long score(Ask ask, NodeState s) {
        int cards = s.cardCount();
        int[] free = FreeShares.of(s);
        long fullyFree = IntStream.of(free).filter(g -> g == Card.WHOLE).count();
        if (fullyFree == cards) {
            return Math.max(33 - cards, cards);
        }
        int[] ascending = IntStream.range(0, cards)
                .boxed()
                .sorted(Comparator.comparingInt(i -> free[i]))
                .mapToInt(Integer::intValue)
                .toArray();
        int wanted = ask.cards();
        int freeTaken = 0;
        long freePercent = 0;
        for (int i : ascending) {
            if (wanted == 0) {
                break;
            }
            if (free[i] >= ask.shareOf(s.card(i))) {
                wanted--;
                freePercent += free[i] * 100L / Card.WHOLE;
                if (free[i] == Card.WHOLE) {
                    freeTaken++;
                }
            }
        }
        if (freeTaken > 0) {
            return Math.max(50 - freeTaken, 33);
        }
        return Math.max(100 - freePercent / 10, 50);
    }
}
