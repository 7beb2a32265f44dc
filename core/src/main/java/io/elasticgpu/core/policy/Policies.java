package io.elasticgpu.core.policy;

import java.util.List;

/** Every policy by the name users select it with ({@link PolicyName}), built against a context. */
public final class Policies {

    /** Our default ({@link PolicyName#DEFAULT}), as a constant for annotations such as an option's default. */
    public static final String DEFAULT = "elastic-lookahead";

    /** The six policies of the FGD paper, in the paper's order. */
    public static final List<String> PAPER =
            PolicyName.PAPER.stream().map(PolicyName::text).toList();

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = PolicyName.texts();

    private Policies() {}

    /**
     * @throws IllegalArgumentException for an unknown name, listing the known ones ({@link PolicyName#parse}), or
     *                                  when the policy needs a workload the context lacks
     */
    public static Policy create(String name, PolicyContext context) {
        return create(PolicyName.parse(name), context);
    }

    /** @throws IllegalArgumentException when the policy needs a workload the context lacks */
    public static Policy create(PolicyName name, PolicyContext context) {
        return switch (name) {
            case ELASTIC -> FgdPolicy.elastic(context.requireWorkload(name.text()));
            case BINPACK -> new BinpackPolicy();
            case SPREAD -> new SpreadPolicy();
            case RANDOM -> new RandomPolicy(context.random());
            case DOT_PRODUCT -> new DotProductPolicy();
            case GPU_CLUSTERING -> new GpuClusteringPolicy();
            case GPU_PACKING -> new GpuPackingPolicy();
            case BEST_FIT -> new BestFitPolicy();
            case FGD -> FgdPolicy.fgd(context.requireWorkload(name.text()));
            case ELASTIC_LOOKAHEAD -> LookaheadPolicy.elastic(context.requireWorkload(name.text()));
        };
    }
}
