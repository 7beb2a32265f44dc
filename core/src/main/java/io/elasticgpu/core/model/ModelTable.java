package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Card models and their peak TFLOPS per precision: what an ask in TFLOPS ({@link ComputeAsk}) is converted with.
 * Immutable.
 *
 * <p>The table is text, one model a line: {@value #HEADER}, then rows such as
 * {@code NVIDIA A100-SXM4-80GB,,19.5,156,312,312,624,https://...}; {@code -} for a precision the card lacks,
 * {@code |} between aliases, {@code #} starts a comment line. The shipped table is {@code gpu-models.csv} beside this
 * class; an operator's table ({@link #extendedBy}) replaces the rows of the models it names and adds the others.
 */
public final class ModelTable {

    /** The header line every table starts with. */
    public static final String HEADER = "name,aliases,fp32,tf32,fp16,bf16,int8,source";

    private static final List<Precision> COLUMNS =
            List.of(Precision.FP32, Precision.TF32, Precision.FP16, Precision.BF16, Precision.INT8);

    private static volatile ModelTable shipped;

    private final List<GpuModel> models;
    private final Map<String, GpuModel> byName;

    private ModelTable(List<GpuModel> models) {
        this.models = List.copyOf(models);
        Map<String, GpuModel> names = new LinkedHashMap<>();
        for (GpuModel m : models) {
            names(m).forEach(n -> names.put(GpuModel.key(n), m));
        }
        this.byName = Map.copyOf(names);
    }

    /** The table this release ships, with each figure's datasheet. */
    public static ModelTable shipped() {
        ModelTable t = shipped;
        if (t == null) {
            t = parse("gpu-models.csv", ShippedText.read("gpu-models.csv"));
            shipped = t;
        }
        return t;
    }

    /**
     * @param origin what the text is, for messages (a file name)
     * @throws IllegalArgumentException naming the origin, line, model and field of the first mistake, and the fix
     */
    public static ModelTable parse(String origin, String text) {
        requireNonNull(origin, "origin");
        List<GpuModel> models = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        String[] lines = requireNonNull(text, "text").split("\\R", -1);
        boolean header = false;
        for (int i = 0; i < lines.length; i++) {
            int number = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!header) {
                if (!line.equals(HEADER)) {
                    throw new IllegalArgumentException(
                            "%s line %d: the first line must be the header \"%s\", was \"%s\""
                                    .formatted(origin, number, HEADER, line));
                }
                header = true;
                continue;
            }
            GpuModel m = row(origin, number, line);
            for (String name : names(m)) {
                Integer earlier = seen.putIfAbsent(GpuModel.key(name), number);
                if (earlier != null) {
                    throw new IllegalArgumentException(("%s line %d (model %s): name %s is on line %d already (names"
                                    + " match whatever their case and separators); give each model and alias once")
                            .formatted(origin, number, m.name(), name, earlier));
                }
            }
            models.add(m);
        }
        if (!header) {
            throw new IllegalArgumentException(
                    "%s: no header line; a model table starts with \"%s\"".formatted(origin, HEADER));
        }
        return new ModelTable(models);
    }

    private static GpuModel row(String origin, int number, String line) {
        String[] f = line.split(",", -1);
        String name = f[0].strip();
        String at = "%s line %d (model %s)".formatted(origin, number, name.isEmpty() ? "?" : name);
        if (f.length != 8) {
            throw new IllegalArgumentException("%s: %d fields, a row has 8: %s".formatted(at, f.length, HEADER));
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException(at + ": field name is empty; write the product name NVML reports");
        }
        List<String> aliases = f[1].isBlank()
                ? List.of()
                : List.of(f[1].split("\\|")).stream().map(String::strip).toList();
        if (aliases.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(at + ": field aliases has an empty name; separate aliases by |");
        }
        Map<Precision, BigDecimal> peak = new EnumMap<>(Precision.class);
        for (int c = 0; c < COLUMNS.size(); c++) {
            String value = f[2 + c].strip();
            if (value.equals("-")) {
                continue;
            }
            BigDecimal tflops;
            try {
                tflops = new BigDecimal(value);
            } catch (NumberFormatException e) {
                tflops = null;
            }
            if (tflops == null || tflops.signum() <= 0) {
                throw new IllegalArgumentException(
                        ("%s: field %s is \"%s\"; write the peak dense TFLOPS (> 0, e.g. 19.5) or - when the card"
                                        + " lacks it")
                                .formatted(at, COLUMNS.get(c).label(), value));
            }
            peak.put(COLUMNS.get(c), tflops);
        }
        if (!peak.containsKey(Precision.FP32)) {
            throw new IllegalArgumentException(at + ": field fp32 is -; every card has an fp32 peak, write it");
        }
        String source = f[7].strip();
        if (source.isEmpty()) {
            throw new IllegalArgumentException(
                    at + ": field source is empty; cite the datasheet the figures come from");
        }
        return new GpuModel(name, aliases, peak, source);
    }

    private static List<String> names(GpuModel m) {
        List<String> names = new ArrayList<>(List.of(m.name()));
        names.addAll(m.aliases());
        return names;
    }

    /** This table with {@code override}'s models: one it names replaces this table's, the others are added. */
    public ModelTable extendedBy(ModelTable override) {
        Map<String, GpuModel> merged = new LinkedHashMap<>();
        models.forEach(m -> merged.put(GpuModel.key(m.name()), m));
        override.models.forEach(m -> merged.put(GpuModel.key(m.name()), m));
        Map<String, String> owner = new LinkedHashMap<>();
        for (GpuModel m : merged.values()) {
            for (String name : names(m)) {
                String other = owner.putIfAbsent(GpuModel.key(name), m.name());
                if (other != null && !other.equals(m.name())) {
                    throw new IllegalArgumentException(("model table: %s names both %s and %s; the override must"
                                    + " replace %s or give its alias up")
                            .formatted(name, other, m.name(), other));
                }
            }
        }
        return new ModelTable(new ArrayList<>(merged.values()));
    }

    public List<GpuModel> models() {
        return models;
    }

    /** The model a card reporting {@code cardModel} is, by name or alias, as {@link GpuModel#key} matches them. */
    public Optional<GpuModel> find(String cardModel) {
        return Optional.ofNullable(byName.get(GpuModel.key(cardModel)));
    }

    /** Whether some model of the table has a peak in {@code precision}. */
    public boolean offers(Precision precision) {
        return models.stream().anyMatch(m -> m.peak().containsKey(precision));
    }

    /**
     * {@code tflops} of {@code precision} on one card, as the share it takes on each model that can give it.
     *
     * @throws IllegalArgumentException when {@code tflops} is not positive, or no model has the precision
     */
    public ComputeAsk ask(int tflops, Precision precision) {
        if (tflops <= 0) {
            throw new IllegalArgumentException("TFLOPS asked must be > 0, was %d".formatted(tflops));
        }
        if (!offers(precision)) {
            throw new IllegalArgumentException(
                    "no card model in the table gives %s; ask one of %s".formatted(precision.label(), offered()));
        }
        Map<String, Integer> milli = new LinkedHashMap<>();
        Map<String, BigDecimal> peaks = new LinkedHashMap<>();
        for (GpuModel m : models) {
            BigDecimal peak = m.peak().get(precision);
            int share = peak == null ? -1 : ComputeAsk.shareMilli(tflops, peak);
            if (share > 0) {
                names(m).forEach(n -> {
                    milli.put(n, share);
                    peaks.put(n, peak);
                });
            }
        }
        if (milli.isEmpty()) {
            throw new IllegalArgumentException(("%d TFLOPS of %s is a whole card or more on every model in the table;"
                            + " ask less, or whole cards")
                    .formatted(tflops, precision.label()));
        }
        return new ComputeAsk(tflops, precision, milli, peaks);
    }

    /**
     * {@code tflops} of the precision named {@code precision} ({@link Precision#DEFAULT} when empty): the reading the
     * extender, the simulator and the webhook share.
     *
     * @throws IllegalArgumentException when the precision is unknown or no model gives it, or tflops is not positive
     */
    public ComputeAsk ask(int tflops, String precision) {
        return ask(tflops, precision == null || precision.isBlank() ? Precision.DEFAULT : Precision.parse(precision));
    }

    /**
     * The TFLOPS of {@code precision} still free on a card of {@code cardModel} whose holders hold {@code milliHeld}
     * of its compute: its model's peak × (1000 - held) / 1000, two decimals rounded down, 0 on a card held whole or
     * over-committed. What {@code egpu inspect} and the dashboard show per card (and sum per node).
     *
     * @return the figure, or {@link CardTflops#UNKNOWN_MODEL} when the table lacks the model, or {@code no <precision>
     *     figure} when the model lacks the precision
     */
    public CardTflops free(String cardModel, int milliHeld, Precision precision) {
        requireNonNull(precision, "precision");
        Optional<GpuModel> model = find(cardModel == null ? "" : cardModel);
        if (model.isEmpty()) {
            return new CardTflops(precision, null, CardTflops.UNKNOWN_MODEL);
        }
        Optional<BigDecimal> peak = model.get().peak(precision);
        if (peak.isEmpty()) {
            return new CardTflops(precision, null, "no %s figure".formatted(precision.label()));
        }
        int free = Math.clamp(Card.WHOLE - (long) milliHeld, 0, Card.WHOLE);
        return new CardTflops(
                precision,
                peak.get()
                        .multiply(BigDecimal.valueOf(free))
                        .divide(BigDecimal.valueOf(Card.WHOLE), 2, RoundingMode.FLOOR),
                null);
    }

    /**
     * The models {@code ask} is offered on, each once (by its name, not its aliases), the largest share first: the
     * model of the lowest peak in the ask's precision, where the ask takes the most of a card, leads. Models the same
     * share of a card (a share rounds up to a whole percent) come lowest peak first, then in the table's order.
     */
    public List<GpuModel> byShareDescending(ComputeAsk ask) {
        return models.stream()
                .filter(m -> ask.offers(m.name()))
                .sorted(java.util.Comparator.comparingInt((GpuModel m) -> -ask.milliOn(m.name()))
                        .thenComparing(m -> ask.peakByModel().get(GpuModel.key(m.name()))))
                .toList();
    }

    /** The precisions some model of the table gives, e.g. {@code fp32, tf32, fp16, bf16, int8}. */
    public String offered() {
        return COLUMNS.stream().filter(this::offers).map(Precision::label).collect(Collectors.joining(", "));
    }
}
