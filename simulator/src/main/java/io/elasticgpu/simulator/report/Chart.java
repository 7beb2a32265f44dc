package io.elasticgpu.simulator.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;

/**
 * PodGrant ratio against arrived workload, one line per policy, published points as circles at 100 % arrival.
 * SVG or PNG by the file's extension; drawn once through {@link Canvas} so both formats show the same chart.
 */
public final class Chart {

    static final int WIDTH = 900;
    static final int HEIGHT = 560;
    private static final int LEFT = 70;
    private static final int RIGHT = 190;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final double X_MAX = 130;
    private static final double Y_MIN = 50;
    private static final double Y_MAX = 100;
    private static final String[] COLORS = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"
    };

    /** The drawing operations the chart needs, in chart pixels. */
    interface Canvas {
        void line(double x1, double y1, double x2, double y2, String color, double width);

        void circle(double x, double y, double r, String color);

        void text(double x, double y, String text, String color, int size, boolean centred);
    }

    private Chart() {}

    /**
     * One line of the chart: @param name its legend, @param curve allocation (percent of capacity) at each whole
     * percent of arrived workload, {@code curve[level]}, NaN where unknown, @param at100 the figure in the legend
     */
    public record Line(String name, double[] curve, double at100) {}

    public static void write(Path file, String title, List<PolicyReport> reports, Map<String, Double> published) {
        writeLines(
                file,
                title,
                reports.stream()
                        .map(r -> new Line(
                                r.policy(), r.curve(), r.allocationAt100().mean()))
                        .toList(),
                published,
                reports.stream().flatMap(r -> r.limits().stream()).findFirst());
    }

    /** The chart of {@code lines}, with {@code published} points (by line name) as circles at 100 % arrival. */
    public static void writeLines(Path file, String title, List<Line> lines, Map<String, Double> published) {
        writeLines(file, title, lines, published, Optional.empty());
    }

    /** As {@link #writeLines(Path, String, List, Map)}, with the bound and the offline packing marked at 100 %. */
    public static void writeLines(
            Path file,
            String title,
            List<Line> lines,
            Map<String, Double> published,
            Optional<PolicyReport.Limits> limits) {
        try {
            if (file.toString().endsWith(".svg")) {
                Svg svg = new Svg();
                draw(svg, title, lines, published, limits);
                Files.writeString(file, svg.finish());
            } else {
                BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
                Graphics2D g = image.createGraphics();
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
                g.setColor(Color.WHITE);
                g.fillRect(0, 0, WIDTH, HEIGHT);
                draw(new Raster(g), title, lines, published, limits);
                g.dispose();
                ImageIO.write(image, "png", file.toFile());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write chart " + file + ": " + e.getMessage(), e);
        }
    }

    static void draw(Canvas c, String title, List<Line> reports, Map<String, Double> published) {
        draw(c, title, reports, published, Optional.empty());
    }

    static void draw(
            Canvas c,
            String title,
            List<Line> reports,
            Map<String, Double> published,
            Optional<PolicyReport.Limits> limits) {
        c.text(WIDTH / 2.0, 24, "GPU allocation ratio vs arrived workload: " + title, "#000000", 15, true);
        for (int x = 0; x <= X_MAX; x += 10) {
            c.line(px(x), py(Y_MIN), px(x), py(Y_MAX), "#e6e6e6", 1);
            c.text(px(x), py(Y_MIN) + 18, Integer.toString(x), "#333333", 11, true);
        }
        for (int y = (int) Y_MIN; y <= Y_MAX; y += 10) {
            c.line(px(0), py(y), px(X_MAX), py(y), "#e6e6e6", 1);
            c.text(LEFT - 28, py(y) + 4, Integer.toString(y), "#333333", 11, true);
        }
        c.line(px(0), py(Y_MIN), px(X_MAX), py(Y_MIN), "#000000", 1);
        c.line(px(0), py(Y_MIN), px(0), py(Y_MAX), "#000000", 1);
        c.text(px(X_MAX / 2), HEIGHT - 16, "arrived workload, % of GPU capacity", "#000000", 12, true);
        c.text(18, TOP - 12, "allocated, %", "#000000", 12, false);
        for (int i = 0; i < reports.size(); i++) {
            Line r = reports.get(i);
            String color = COLORS[i % COLORS.length];
            double[] curve = r.curve();
            for (int level = 1; level < curve.length && level <= X_MAX; level++) {
                if (!Double.isNaN(curve[level - 1]) && !Double.isNaN(curve[level])) {
                    c.line(px(level - 1), py(clamp(curve[level - 1])), px(level), py(clamp(curve[level])), color, 2);
                }
            }
            double legendY = TOP + 20 + 20 * i;
            c.line(WIDTH - RIGHT + 20, legendY - 4, WIDTH - RIGHT + 45, legendY - 4, color, 3);
            c.text(
                    WIDTH - RIGHT + 52,
                    legendY,
                    String.format(Locale.ROOT, "%s %.2f", r.name(), r.at100()),
                    "#000000",
                    12,
                    false);
            Double paper = published.get(r.name());
            if (paper != null) {
                c.circle(px(100), py(clamp(paper)), 5, color);
            }
        }
        double legendBelow = TOP + 30 + 20 * reports.size();
        if (limits.isPresent()) {
            // the ceiling: a bar across 100 % arrival at the bound, a thinner one at the offline packing
            double bound = limits.get().boundPct();
            double offline = limits.get().offlinePct();
            c.line(px(95), py(clamp(bound)), px(105), py(clamp(bound)), "#000000", 3);
            c.line(px(95), py(clamp(offline)), px(105), py(clamp(offline)), "#555555", 1.5);
            c.line(WIDTH - RIGHT + 20, legendBelow - 4, WIDTH - RIGHT + 45, legendBelow - 4, "#000000", 3);
            c.text(
                    WIDTH - RIGHT + 52,
                    legendBelow,
                    String.format(Locale.ROOT, "LP bound %.2f", bound),
                    "#000000",
                    12,
                    false);
            c.line(WIDTH - RIGHT + 20, legendBelow + 16, WIDTH - RIGHT + 45, legendBelow + 16, "#555555", 1.5);
            c.text(
                    WIDTH - RIGHT + 52,
                    legendBelow + 20,
                    String.format(Locale.ROOT, "offline %.2f", offline),
                    "#000000",
                    12,
                    false);
            legendBelow += 40;
        }
        if (!published.isEmpty()) {
            double y = legendBelow;
            c.circle(WIDTH - RIGHT + 32, y - 4, 5, "#555555");
            c.text(WIDTH - RIGHT + 52, y, "published (FGD artifact)", "#000000", 12, false);
        }
    }

    private static double clamp(double y) {
        return Math.max(Y_MIN, Math.min(Y_MAX, y));
    }

    private static double px(double x) {
        return LEFT + x / X_MAX * (WIDTH - LEFT - RIGHT);
    }

    private static double py(double y) {
        return TOP + (Y_MAX - y) / (Y_MAX - Y_MIN) * (HEIGHT - TOP - BOTTOM);
    }

    private static final class Svg implements Canvas {
        private final List<String> elements = new ArrayList<>();

        @Override
        public void line(double x1, double y1, double x2, double y2, String color, double width) {
            elements.add(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>",
                    x1,
                    y1,
                    x2,
                    y2,
                    color,
                    width));
        }

        @Override
        public void circle(double x, double y, double r, String color) {
            elements.add(String.format(
                    Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>",
                    x,
                    y,
                    r,
                    color));
        }

        @Override
        public void text(double x, double y, String text, String color, int size, boolean centred) {
            elements.add(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-size=\"%d\" font-family=\"sans-serif\"%s>%s</text>",
                    x,
                    y,
                    color,
                    size,
                    centred ? " text-anchor=\"middle\"" : "",
                    text.replace("&", "&amp;").replace("<", "&lt;")));
        }

        String finish() {
            return ("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n<rect width=\"100%%\" "
                            + "height=\"100%%\" fill=\"white\"/>\n%s\n</svg>\n")
                    .formatted(WIDTH, HEIGHT, String.join("\n", elements));
        }
    }

    private record Raster(Graphics2D g) implements Canvas {
        @Override
        public void line(double x1, double y1, double x2, double y2, String color, double width) {
            g.setColor(Color.decode(color));
            g.setStroke(new BasicStroke((float) width));
            g.draw(new Line2D.Double(x1, y1, x2, y2));
        }

        @Override
        public void circle(double x, double y, double r, String color) {
            g.setColor(Color.decode(color));
            g.setStroke(new BasicStroke(2));
            g.draw(new Ellipse2D.Double(x - r, y - r, 2 * r, 2 * r));
        }

        @Override
        public void text(double x, double y, String text, String color, int size, boolean centred) {
            g.setColor(Color.decode(color));
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, size));
            double width = centred ? g.getFontMetrics().stringWidth(text) : 0;
            g.drawString(text, (float) (x - width / 2), (float) y);
        }
    }
}
