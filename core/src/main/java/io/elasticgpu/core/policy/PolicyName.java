package io.elasticgpu.core.policy;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Every placement policy by the name users select it with: the closed set that the extender's {@code --policy},
 * {@code egpu simulate --policy} and {@link Policies#create} accept, read here and nowhere else. An unknown name is
 * refused with one message, naming the known ones.
 */
public enum PolicyName {
    ELASTIC("elastic"),
    BINPACK("binpack"),
    SPREAD("spread"),
    RANDOM("random"),
    DOT_PRODUCT("dot-product"),
    GPU_CLUSTERING("gpu-clustering"),
    GPU_PACKING("gpu-packing"),
    BEST_FIT("best-fit"),
    FGD("fgd"),
    ELASTIC_LOOKAHEAD("elastic-lookahead");

    /**
     * Our default: {@code elastic} with rollouts of likely next pods on its best nodes, at least half a point above
     * {@code fgd} on every openb trace (docs/results/placement-lookahead.md).
     */
    public static final PolicyName DEFAULT = ELASTIC_LOOKAHEAD;

    /** The six policies of the FGD paper, in the paper's order. */
    public static final List<PolicyName> PAPER =
            List.of(RANDOM, DOT_PRODUCT, GPU_CLUSTERING, GPU_PACKING, BEST_FIT, FGD);

    /** In a list ({@link #parseList}): the paper's six. */
    public static final String PAPER_GROUP = "paper";
    /** In a list ({@link #parseList}): the paper's six, then every other policy. */
    public static final String ALL_GROUP = "all";

    private final String text;

    PolicyName(String text) {
        this.text = text;
    }

    /** The name as users write it, e.g. {@code dot-product}. */
    public String text() {
        return text;
    }

    /** Whether the policy ranks by fragmentation against the expected workload, which its context must then hold. */
    public boolean needsWorkload() {
        return this == ELASTIC || this == FGD || this == ELASTIC_LOOKAHEAD;
    }

    /** Every name, as users write them, in declaration order. */
    public static List<String> texts() {
        return Arrays.stream(values()).map(PolicyName::text).toList();
    }

    /** The policy named {@code text}, exactly as written (no other case, no blanks); empty for any other text. */
    private static Optional<PolicyName> find(String text) {
        return Arrays.stream(values()).filter(p -> p.text.equals(text)).findFirst();
    }

    /**
     * @throws IllegalArgumentException {@code unknown policy "tetris"; choose one of: elastic, binpack, …}
     */
    public static PolicyName parse(String text) {
        return find(text).orElseThrow(() -> unknown(text, "", false));
    }

    /**
     * A comma list of names and groups ({@value #PAPER_GROUP}, {@value #ALL_GROUP}), each policy once, in the order
     * first named; blanks around names are ignored.
     *
     * @param option the option or key the list came from, for the message (e.g. {@code --policy})
     * @throws IllegalArgumentException {@code unknown policy "tetris" in --policy; choose from elastic, …, paper or
     * all}
     */
    public static List<PolicyName> parseList(String text, String option) {
        LinkedHashSet<PolicyName> names = new LinkedHashSet<>();
        for (String part : text.split(",")) {
            String name = part.strip();
            switch (name) {
                case PAPER_GROUP -> names.addAll(PAPER);
                case ALL_GROUP -> {
                    names.addAll(PAPER);
                    names.addAll(List.of(values()));
                }
                default -> names.add(find(name).orElseThrow(() -> unknown(name, " in " + option, true)));
            }
        }
        return List.copyOf(names);
    }

    /** The one message for a name that is none of these: the name, where it was, and what to write instead. */
    private static IllegalArgumentException unknown(String name, String where, boolean groups) {
        String known = String.join(", ", texts());
        return new IllegalArgumentException("unknown policy \"%s\"%s; choose %s"
                .formatted(
                        name,
                        where,
                        groups ? "from %s, %s or %s".formatted(known, PAPER_GROUP, ALL_GROUP) : "one of: " + known));
    }

    /** The name as users write it. */
    @Override
    public String toString() {
        return text;
    }
}
