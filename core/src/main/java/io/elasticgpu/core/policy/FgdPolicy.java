package io.elasticgpu.core.policy;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * Fragmentation Gradient Descent (Weng et al., USENIX ATC'23): prefer the node, and the card, whose fragmentation
 * {@link Fragmentation F(n)} grows least. Score {@code floor(100 * sigmoid((F(n) - F(n')) / 1000))} where n' is the
 * node after placing; a one-card slice tries every fitting card and keeps the first best, anything else takes the
 * best-linked cards (the lowest-index free ones when links are alike).
 *
 * <p>The integer score is deliberate: nodes within about 40 milli-cards of each other tie, and ties go to the
 * earlier node, so that among good nodes the cluster fills first-fit. Measured on the Alibaba trace, finer scores
 * lose 1 to 3 points of allocation.
 *
 * <p>Two policies are this class: {@code fgd}, the paper's, with {@link Fragmentation#gpuAndCpu}; and
 * {@code elastic}, ours, with {@link Fragmentation#allResources}, which also sees host memory.
 */
public final class FgdPolicy implements Policy {

    private final String name;
    private final Fragmentation fragmentation;

    public FgdPolicy(String name, Fragmentation fragmentation) {
        this.name = name;
        this.fragmentation = fragmentation;
    }

    /** The paper's FGD. */
    public static FgdPolicy fgd(TypicalWorkload workload) {
        return new FgdPolicy("fgd", Fragmentation.gpuAndCpu(workload));
    }

    /** Ours: FGD's gradient over every resource a pod needs, host memory included. */
    public static FgdPolicy elastic(TypicalWorkload workload) {
        return new FgdPolicy("elastic", Fragmentation.allResources(workload));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Choice choose(Ask ask, NodeState s) {
        int[] free = FreeShares.of(s);
        String model = s.node().model();
        double before = fragmentation.of(s.freeCpu(), s.freeMemory(), free, model);
        long cpuAfter = s.freeCpu() - ask.cpuMilli();
        long memoryAfter = s.freeMemory() - ask.memoryMib();
        if (ask.sharesOneCard()) {
            long best = 0;
            int card = -1;
            for (int i = 0; i < free.length; i++) {
                if (!s.cardFits(ask, i)) {
                    continue;
                }
                int taken = ask.shareOf(s.card(i));
                free[i] -= taken;
                long score = score(before - fragmentation.of(cpuAfter, memoryAfter, free, model));
                free[i] += taken;
                if (card < 0 || score > best) {
                    best = score;
                    card = i;
                }
            }
            return new Choice(best, new int[] {card});
        }
        int[] cards = ask.needsCards() ? CardChoice.linked(ask, s) : new int[0];
        for (int c : cards) {
            free[c] -= ask.shareOf(s.card(c));
        }
        return new Choice(score(before - fragmentation.of(cpuAfter, memoryAfter, free, model)), cards);
    }

    /** {@code floor(100 * sigmoid(delta / 1000))}, the paper's integer score. */
    static long score(double fragmentationDecrease) {
        return (long) (sigmoid(fragmentationDecrease / 1000) * 100);
    }

    private static double sigmoid(double x) {
        return 1.0 / (1.0 + Math.exp(-x));
    }
}
