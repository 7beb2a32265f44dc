package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.ComputeAsk;
import io.elasticgpu.core.snapshot.NodeState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The FGD paper's measure of how much of a node's idle GPU capacity the expected workload cannot use:
 * {@code F(n) = sum over typical pods t of p_t * F_t(n)}, where {@code F_t} is the node's whole idle capacity when t
 * cannot run there at all (needs no GPU, wrong model, too little CPU or too few fitting cards), and otherwise the
 * idle capacity of the cards too small for t. In milli-cards. Immutable and thread-safe.
 *
 * <p>Two flavours: {@link #gpuAndCpu} is the paper's, exactly; {@link #allResources} also counts a typical pod as
 * unable to run where the node lacks the host memory it needs, which the paper leaves out although memory is what
 * most often stops pods on the Alibaba trace's busiest nodes.
 */
public final class Fragmentation {

    // The seven buckets of the paper's artifact; the sum runs over them in this order so that the floating-point
    // result, and every FGD score built on it, is bit for bit the artifact's.
    private static final int LACK_BOTH = 0;
    private static final int LACK_GPU = 1;
    private static final int LACK_CPU = 3;
    private static final int NO_GPU_SATISFIED = 4;
    private static final int NO_GPU_LACK_CPU = 5;
    private static final int NO_ACCESS = 6;

    private final boolean hostMemory;
    private final long[] cpu;
    private final long[] memory;
    private final int[] milli;
    private final int[] cards;
    private final double[] probability;
    private final List<List<String>> models;
    private final List<Ask> asks;
    private final Map<String, PerModel> byModel = new ConcurrentHashMap<>();

    /** Which shapes may take cards of one model, and the compute each takes there (TFLOPS asks differ by model). */
    private record PerModel(boolean[] access, int[] milli) {}

    private Fragmentation(TypicalWorkload workload, boolean hostMemory) {
        requireNonNull(workload, "workload");
        this.hostMemory = hostMemory;
        List<TypicalWorkload.Typical> t = workload.typicals();
        int n = t.size();
        cpu = new long[n];
        memory = new long[n];
        milli = new int[n];
        cards = new int[n];
        probability = new double[n];
        models = t.stream().map(x -> x.ask().models()).toList();
        asks = t.stream().map(TypicalWorkload.Typical::ask).toList();
        for (int i = 0; i < n; i++) {
            Ask ask = t.get(i).ask();
            cpu[i] = ask.cpuMilli();
            memory[i] = hostMemory ? ask.memoryMib() : 0;
            milli[i] = ask.milliPerCard();
            cards[i] = ask.cards();
            probability[i] = t.get(i).probability();
        }
    }

    /** The paper's measure: a typical pod runs where its CPU and GPU fit. */
    public static Fragmentation gpuAndCpu(TypicalWorkload workload) {
        return new Fragmentation(workload, false);
    }

    /** The paper's measure, with host memory as a third resource a typical pod must find. */
    public static Fragmentation allResources(TypicalWorkload workload) {
        return new Fragmentation(workload, true);
    }

    /** F(n) of a node as it is. */
    public double of(NodeState node) {
        return of(
                node.freeCpu(),
                node.freeMemory(),
                FreeShares.of(node),
                node.node().model());
    }

    /**
     * F(n) of a node with {@code freeCpu} milli-CPU, {@code freeMemory} MiB of host memory and {@code freeShare[i]}
     * milli left on card i, whose cards are of {@code model}.
     */
    public double of(long freeCpu, long freeMemory, int[] freeShare, String model) {
        long idle = 0;
        for (int share : freeShare) {
            idle += share;
        }
        PerModel perModel = byModel.computeIfAbsent(model, this::perModel);
        boolean[] access = perModel.access();
        int[] milli = perModel.milli();
        double[] bucket = new double[7];
        for (int t = 0; t < probability.length; t++) {
            double p = probability[t];
            boolean cpuOk = freeCpu >= cpu[t] && freeMemory >= memory[t];
            if (milli[t] == 0) {
                bucket[cpuOk ? NO_GPU_SATISFIED : NO_GPU_LACK_CPU] += p * idle;
            } else if (!access[t]) {
                bucket[NO_ACCESS] += p * idle;
            } else if (fits(freeShare, milli[t], cards[t])) {
                if (cpuOk) {
                    bucket[LACK_GPU] += p * tooSmall(freeShare, milli[t]);
                } else {
                    bucket[LACK_CPU] += p * idle;
                }
            } else {
                bucket[cpuOk ? LACK_GPU : LACK_BOTH] += p * idle;
            }
        }
        double sum = 0;
        sum += bucket[LACK_BOTH];
        sum += bucket[LACK_GPU];
        sum += bucket[LACK_CPU];
        sum += bucket[NO_GPU_SATISFIED];
        sum += bucket[NO_GPU_LACK_CPU];
        sum += bucket[NO_ACCESS];
        return sum;
    }

    private static boolean fits(int[] freeShare, int milli, int cards) {
        int fitting = 0;
        for (int share : freeShare) {
            if (share >= milli && ++fitting >= cards) {
                return true;
            }
        }
        return false;
    }

    private static long tooSmall(int[] freeShare, int milli) {
        long sum = 0;
        for (int share : freeShare) {
            if (share < milli) {
                sum += share;
            }
        }
        return sum;
    }

    private PerModel perModel(String model) {
        boolean[] out = new boolean[models.size()];
        int[] onModel = milli.clone();
        for (int t = 0; t < out.length; t++) {
            out[t] = models.get(t).isEmpty()
                    || (!model.isEmpty() && models.get(t).contains(model));
            ComputeAsk computeAsk = asks.get(t).computeAsk();
            if (computeAsk.asked()) {
                out[t] = out[t] && computeAsk.offers(model);
                onModel[t] = computeAsk.milliOn(model);
            }
        }
        return new PerModel(out, onModel);
    }
}
