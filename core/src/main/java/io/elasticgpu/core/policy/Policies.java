package io.elasticgpu.core.policy;

import java.util.List;

/** Every policy by the name users select it with. */
public final class Policies {

    /** Our default. */
    public static final String DEFAULT = "elastic";

    /** The six policies of the FGD paper, in the paper's order. */
    public static final List<String> PAPER = List.of("random", "dot-product", "gpu-clustering", "gpu-packing",
            "best-fit", "fgd");

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = List.of("elastic", "binpack", "spread", "random", "dot-product",
            "gpu-clustering", "gpu-packing", "best-fit", "fgd");

    private Policies() {
    }

    /**
     * @throws IllegalArgumentException for an unknown name, listing the known ones, or when the policy needs a
     *                                  workload the context lacks
     */
    public static Policy create(String name, PolicyContext context) {
        return switch (name) {
            case "elastic" -> FgdPolicy.elastic(context.requireWorkload(name));
            case "binpack" -> new BinpackPolicy();
            case "spread" -> new SpreadPolicy();
            case "random" -> new RandomPolicy(context.random());
            case "dot-product" -> new DotProductPolicy();
            case "gpu-clustering" -> new GpuClusteringPolicy();
            case "gpu-packing" -> new GpuPackingPolicy();
            case "best-fit" -> new BestFitPolicy();
            case "fgd" -> FgdPolicy.fgd(context.requireWorkload(name));
            default -> throw new IllegalArgumentException(
                    "unknown policy \"%s\"; choose one of: %s".formatted(name, String.join(", ", NAMES)));
        };
    }

    /** Whether the policy needs the expected workload in its context. */
    public static boolean needsWorkload(String name) {
        return name.equals("elastic") || name.equals("fgd");
    }
}
