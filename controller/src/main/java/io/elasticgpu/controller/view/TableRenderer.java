package io.elasticgpu.controller.view;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.core.model.CardTflops;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The view for people. {@code table} keeps every line within {@value #WIDTH} columns (long pod lists, node headers
 * and problems are cut with an ellipsis or wrapped); {@code wide} adds card uuids and one line per holder, and may be
 * wider. Memory in GiB with one decimal (a holder's in MiB), compute in percent of a card. What pods are granted
 * always; what they use where the node's agent measured it: a USED column on the card lines of such a node, and on
 * every holder's line the memory used and the SM, {@code -} where unknown, {@code OVER} past the grant. Free TFLOPS
 * ({@link FreeTflops}) in a column per card, {@code ?} for a model the table lacks and {@code -} for one without the
 * precision, and summed per node and in the summary.
 */
public final class TableRenderer {

    /** The widest line {@code table} prints. */
    public static final int WIDTH = 80;

    private static final String ELLIPSIS = "…";
    private static final String CARD_LINE = "  %-4s  %-21s  %11s  %4s  %9s  %s";
    /** The same with the memory used beside that granted, and a mark where a container uses more than granted. */
    private static final String MEASURED_CARD_LINE = "  %-4s  %-21s  %11s  %5s%-1s %4s  %9s  %s";
    /** In the free TFLOPS column: the table lacks the card's model. */
    private static final String UNKNOWN_MODEL_MARK = "?";
    /** In the free TFLOPS column: the card's model has no figure for the precision. */
    private static final String NO_FIGURE_MARK = "-";

    private static final String OVER_MARK = "!";

    private final boolean wide;

    public TableRenderer(boolean wide) {
        this.wide = wide;
    }

    public String render(ClusterView view) {
        List<String> lines = new ArrayList<>();
        summary(view, lines);
        for (NodeView node : view.nodes()) {
            lines.add("");
            node(node, lines);
        }
        if (!view.pending().isEmpty()) {
            lines.add("");
            String pods = view.pending().stream()
                    .map(p -> p.namespace() + "/" + p.pod())
                    .collect(Collectors.joining(", "));
            wrap("pending (%d): %s".formatted(view.pending().size(), pods), "  ", lines);
        }
        if (!view.problems().isEmpty()) {
            lines.add("");
            lines.add("problems (%d):".formatted(view.problems().size()));
            for (Problem p : view.problems()) {
                wrap("  " + p.object() + ": " + p.reason(), "      ", lines);
            }
        }
        return String.join("\n", lines) + "\n";
    }

    private static void summary(ClusterView view, List<String> lines) {
        Summary s = view.summary();
        String unhealthy = s.unhealthyCards() == 0 ? "" : " (%d unhealthy)".formatted(s.unhealthyCards());
        lines.add("GPU nodes  %d, %d card%s%s".formatted(s.nodes(), s.cards(), s.cards() == 1 ? "" : "s", unhealthy));
        lines.add("memory     %s/%s GiB granted (%d%%)"
                .formatted(
                        gib(s.memoryGrantedMib()),
                        gib(s.memoryCapacityMib()),
                        percent(s.memoryGrantedMib(), s.memoryCapacityMib())));
        lines.add("compute    %d/%d granted, 100 per card (%d%%)"
                .formatted(
                        s.computeGrantedPercent(),
                        s.computeCapacityPercent(),
                        percent(s.computeGrantedPercent(), s.computeCapacityPercent())));
        if (s.freeTflops() != null) {
            wrap("free       " + free(s.freeTflops()), "           ", lines);
        }
        lines.add("pods       %d holding cards, %d pending".formatted(s.podsHoldingCards(), s.podsPending()));
        Scope scope = view.scope();
        if (scope.node() != null) {
            wrap(
                    "scope      node %s only; pending pods are counted cluster-wide".formatted(scope.node()),
                    "           ",
                    lines);
        }
        if (scope.namespace() != null) {
            wrap(
                    "scope      namespace %s: its pods only; totals count all namespaces".formatted(scope.namespace()),
                    "           ",
                    lines);
        }
    }

    private void node(NodeView node, List<String> lines) {
        StringBuilder header = new StringBuilder(node.name())
                .append("  ")
                .append(node.cards().size())
                .append(" × ")
                .append(node.model());
        if (!node.driver().isEmpty()) {
            header.append("  driver ").append(node.driver());
        }
        if (!node.nvlinkIslands().isEmpty()) {
            header.append("  NVLink ")
                    .append(node.nvlinkIslands().stream()
                            .map(TableRenderer::cardRange)
                            .collect(Collectors.joining(" ")));
        }
        lines.add(wide ? header.toString() : cut(header.toString(), WIDTH));
        // A node's agent measures all its cards at once, or none: the USED column only where it did.
        boolean measured = !node.cards().isEmpty() && node.cards().stream().allMatch(CardView::usageKnown);
        if (measured) {
            lines.add("  used: measured " + node.cards().getFirst().usageMeasured());
        } else if (!node.cards().isEmpty()) {
            lines.add("  used: unknown, no readable " + Annotations.USAGE + " annotation");
        }
        if (node.freeTflops() != null && !node.cards().isEmpty()) {
            wrap("  free: " + free(node.freeTflops()), "    ", lines);
        }
        String last = wide ? "UUID" : "PODS";
        String freeHeader = "FREE "
                + (node.freeTflops() == null
                        ? "TF"
                        : node.freeTflops().precision().toUpperCase(Locale.ROOT));
        lines.add((measured
                        ? MEASURED_CARD_LINE.formatted(
                                "CARD", "MODEL", "GRANTED GiB", "USED", "", "CORE", freeHeader, last)
                        : CARD_LINE.formatted("CARD", "MODEL", "GRANTED GiB", "CORE", freeHeader, last))
                .stripTrailing());
        int podWidth = node.cards().stream()
                .flatMap(c -> c.holders().stream())
                .mapToInt(h -> h.podName().length())
                .max()
                .orElse(0);
        int containerWidth = node.cards().stream()
                .flatMap(c -> c.holders().stream())
                .mapToInt(h -> h.container().length())
                .max()
                .orElse(0);
        boolean anyOver = false;
        for (CardView card : node.cards()) {
            String pods = card.holders().stream().map(Holder::pod).distinct().collect(Collectors.joining(", "));
            String index = card.index() + (card.healthy() ? "" : "*");
            String granted = gib(card.memoryGrantedMib()) + "/" + gib(card.memoryTotalMib());
            boolean over = card.holders().stream().anyMatch(Holder::usesMoreThanGranted);
            anyOver |= over;
            String prefix = measured
                    ? MEASURED_CARD_LINE.formatted(
                            index,
                            cut(card.model(), 21),
                            granted,
                            gib(card.memoryUsedMib()),
                            over ? OVER_MARK : "",
                            card.computeGrantedPercent() + "%",
                            freeCell(card.freeTflops()),
                            "")
                    : CARD_LINE.formatted(
                            index,
                            cut(card.model(), 21),
                            granted,
                            card.computeGrantedPercent() + "%",
                            freeCell(card.freeTflops()),
                            "");
            lines.add((wide ? prefix + card.uuid() : prefix + cut(pods, WIDTH - prefix.length())).stripTrailing());
            if (wide) {
                for (Holder h : card.holders()) {
                    lines.add(("        %-" + podWidth + "s  %-" + containerWidth + "s  %s")
                            .formatted(h.podName(), h.container(), holderFigures(h)));
                }
            }
        }
        if (node.cards().stream().anyMatch(c -> !c.healthy())) {
            lines.add("  * unhealthy: the scheduler places nothing new on it");
            node.cards().stream()
                    .filter(c ->
                            !c.healthy() && c.reason() != null && !c.reason().isEmpty())
                    .forEach(c -> lines.add(cut("    card %d: %s".formatted(c.index(), c.reason()), WIDTH)));
        }
        node.cards().stream()
                .map(CardView::freeTflops)
                .filter(f -> f != null && f.free() == null)
                .map(f -> CardTflops.UNKNOWN_MODEL.equals(f.unknown())
                        ? UNKNOWN_MODEL_MARK + " unknown model: the model table has no TFLOPS for it"
                        : NO_FIGURE_MARK + " " + f.unknown() + " in the model table for its model")
                .distinct()
                .forEach(note -> lines.add("  " + note));
        if (anyOver) {
            lines.add("  " + OVER_MARK + " a container uses more memory than it was granted"
                    + (wide ? ": marked OVER" : "; -o wide shows which"));
        }
    }

    /**
     * {@code 8,192 granted /   9,216 used MiB  OVER  core  30% / SM  27%  allocated}: memory granted and used, exact
     * to the MiB so that a container over its grant by a little shows it; the compute granted, the SM its processes
     * use ({@code -} unknown); the phase; for a share asked in TFLOPS, {@code TFLOPS 100 bf16 asked / 108.84 given}.
     */
    private static String holderFigures(Holder h) {
        return "%7s granted / %7s used MiB%-6s  core %3d%% / SM %4s  %s%s"
                .formatted(
                        mib(h.memoryMib()),
                        h.usedMemoryMib() < 0 ? "-" : mib(h.usedMemoryMib()),
                        h.usesMoreThanGranted() ? "  OVER" : "",
                        h.percent(),
                        h.smPercent() < 0 ? "-" : h.smPercent() + "%",
                        h.phase(),
                        h.tflops() == null
                                ? ""
                                : "  TFLOPS %d %s asked / %s given"
                                        .formatted(
                                                h.tflops().asked(),
                                                h.tflops().precision(),
                                                java.math.BigDecimal.valueOf(
                                                                h.tflops().given())
                                                        .stripTrailingZeros()
                                                        .toPlainString()));
    }

    /**
     * {@code 1,760.62 TFLOPS bf16 on healthy cards; not counted: 1 card: unknown model}; {@code TFLOPS bf16 unknown:
     * 8 cards: unknown model} when no card has a figure.
     */
    private static String free(FreeTflops f) {
        String missing = f.unknown() == null ? "" : "; not counted: " + f.unknown();
        return f.free() == null
                ? "TFLOPS %s unknown: %s"
                        .formatted(f.precision(), f.unknown() == null ? "no healthy cards" : f.unknown())
                : "%s TFLOPS %s on healthy cards%s".formatted(tflops(f.free()), f.precision(), missing);
    }

    /** A card's free TFLOPS, or {@code ?} (unknown model) or {@code -} (no figure for the precision). */
    private static String freeCell(FreeTflops f) {
        if (f == null) {
            return "";
        }
        if (f.free() == null) {
            return CardTflops.UNKNOWN_MODEL.equals(f.unknown()) ? UNKNOWN_MODEL_MARK : NO_FIGURE_MARK;
        }
        return tflops(f.free());
    }

    private static String tflops(java.math.BigDecimal value) {
        return String.format(Locale.ROOT, "%,.2f", value);
    }

    /** {@code 0-3} for consecutive cards, else {@code 0,2,5}. */
    private static String cardRange(List<Integer> cards) {
        boolean consecutive = cards.getLast() - cards.getFirst() == cards.size() - 1;
        return consecutive && cards.size() > 1
                ? cards.getFirst() + "-" + cards.getLast()
                : cards.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Breaks {@code text} into lines of at most {@value #WIDTH} at spaces, continuing with {@code indent}. */
    private static void wrap(String text, String indent, List<String> lines) {
        String rest = text;
        while (rest.length() > WIDTH) {
            int at = rest.lastIndexOf(' ', WIDTH);
            if (at <= indent.length()) {
                at = WIDTH;
            }
            lines.add(rest.substring(0, at).stripTrailing());
            rest = indent + rest.substring(at).strip();
        }
        lines.add(rest);
    }

    /** {@code text}, or its first {@code width - 1} characters and an ellipsis. */
    static String cut(String text, int width) {
        return text.length() <= width ? text : text.substring(0, Math.max(0, width - 1)) + ELLIPSIS;
    }

    private static String gib(long mib) {
        return String.format(Locale.ROOT, "%.1f", mib / 1024.0);
    }

    private static String mib(long mib) {
        return String.format(Locale.ROOT, "%,d", mib);
    }

    private static long percent(long part, long whole) {
        return whole == 0 ? 0 : Math.round(100.0 * part / whole);
    }
}
