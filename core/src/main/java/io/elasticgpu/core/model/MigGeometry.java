package io.elasticgpu.core.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How MIG divides the cards of some models: their compute and memory slices and the profiles an instance may take.
 * The shipped table ({@code mig-profiles.csv} beside this class) is NVIDIA's MIG user guide as data, as the TFLOPS of
 * {@link ModelTable} are the datasheets'. Immutable.
 *
 * @param models        the names NVML reports for the cards of this geometry
 * @param computeSlices compute slices of a card (7; 4 on the A30)
 * @param memorySlices  memory slices of a card (8; 4 on the A30)
 * @param profiles      smallest first: fewest compute slices, then fewest memory slices
 */
public record MigGeometry(List<String> models, int computeSlices, int memorySlices, List<MigProfile> profiles) {

    /** The header line of the table. */
    public static final String HEADER = "models,slices,profile,compute,memory,starts";

    private static final Comparator<MigProfile> SMALLEST_FIRST = Comparator.comparingInt(MigProfile::computeSlices)
            .thenComparingInt(MigProfile::memorySlices)
            .thenComparing(MigProfile::name);

    private static volatile List<MigGeometry> shipped;

    public MigGeometry {
        models = List.copyOf(requireNonNull(models, "models"));
        profiles = requireNonNull(profiles, "profiles").stream()
                .sorted(SMALLEST_FIRST)
                .toList();
        if (models.isEmpty() || profiles.isEmpty() || computeSlices < 1 || memorySlices < 1 || memorySlices > 30) {
            throw new IllegalArgumentException(
                    "MIG geometry of %s: needs models, profiles and 1..30 slices of each kind".formatted(models));
        }
        for (MigProfile p : profiles) {
            if (p.computeSlices() > computeSlices || p.starts().getLast() + p.memorySlices() > memorySlices) {
                throw new IllegalArgumentException(
                        "MIG geometry of %s: profile %s does not fit a card of %d compute and %d memory slices"
                                .formatted(models, p.name(), computeSlices, memorySlices));
            }
        }
        if (profiles.stream().noneMatch(p -> p.computeSlices() == computeSlices)) {
            throw new IllegalArgumentException("MIG geometry of %s: no profile takes the whole card".formatted(models));
        }
    }

    /** The geometry of the card model NVML names {@code model} (names match whatever their case and separators). */
    public static Optional<MigGeometry> of(String model) {
        String key = GpuModel.key(model);
        return shipped().stream()
                .filter(g -> g.models().stream().anyMatch(m -> GpuModel.key(m).equals(key)))
                .findFirst();
    }

    /** Every geometry of the shipped table. */
    public static List<MigGeometry> shipped() {
        List<MigGeometry> s = shipped;
        if (s == null) {
            s = parse("mig-profiles.csv", ShippedText.read("mig-profiles.csv"));
            shipped = s;
        }
        return s;
    }

    /**
     * The smallest profile whose compute holds {@code milli} thousandths of a card (fewest compute slices, then
     * fewest memory slices); the whole card's profile for 1000; empty above.
     */
    public Optional<MigProfile> smallestHolding(int milli) {
        return profiles.stream()
                .filter(p -> (long) p.computeSlices() * 1000 >= (long) milli * computeSlices)
                .findFirst();
    }

    /** The profile whose instances take {@code computeSlices} and {@code memorySlices}, if this geometry has one. */
    public Optional<MigProfile> profile(int computeSlices, int memorySlices) {
        return profiles.stream()
                .filter(p -> p.computeSlices() == computeSlices && p.memorySlices() == memorySlices)
                .findFirst();
    }

    /** The profile named {@code name}, if this geometry has it. */
    public Optional<MigProfile> profile(String name) {
        return profiles.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * Why {@code profile} (as a MIG resource names it: {@code 3g.40gb}, or {@code 1c.3g.40gb} for part of a GPU
     * instance) is no MIG profile of any card model in the shipped table, or empty when some model has it.
     */
    public static Optional<String> unknown(String profile) {
        String gpuInstance = profile.replaceFirst("^\\d+c\\.", "");
        List<MigGeometry> all = shipped();
        if (all.stream().anyMatch(g -> g.profile(gpuInstance).isPresent())) {
            return Optional.empty();
        }
        StringBuilder known = new StringBuilder();
        for (MigGeometry g : all) {
            known.append(known.isEmpty() ? "" : "; ")
                    .append(String.join(", ", g.models()))
                    .append(": ")
                    .append(String.join(
                            ", ", g.profiles().stream().map(MigProfile::name).toList()));
        }
        return Optional.of(
                "no card model has MIG profile %s; the models and their profiles are %s".formatted(gpuInstance, known));
    }

    /**
     * @param origin what the text is, for messages
     * @throws IllegalArgumentException naming the line and the mistake
     */
    public static List<MigGeometry> parse(String origin, String text) {
        Map<String, List<Row>> groups = new LinkedHashMap<>(); // "models,slices" -> its rows
        String[] lines = text.split("\\R", -1);
        boolean header = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!header) {
                if (!line.equals(HEADER)) {
                    throw new IllegalArgumentException("%s line %d: the first line must be \"%s\", was \"%s\""
                            .formatted(origin, i + 1, HEADER, line));
                }
                header = true;
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length != 6) {
                throw new IllegalArgumentException(
                        "%s line %d: %d fields, a row has 6: %s".formatted(origin, i + 1, f.length, HEADER));
            }
            groups.computeIfAbsent(f[0].strip() + "," + f[1].strip(), k -> new ArrayList<>())
                    .add(new Row(i + 1, f));
        }
        List<MigGeometry> out = new ArrayList<>();
        groups.values().forEach(group -> out.add(geometry(origin, group)));
        return List.copyOf(out);
    }

    /** One line of the table: its number, for messages, and its six fields. */
    private record Row(int line, String[] fields) {}

    private static MigGeometry geometry(String origin, List<Row> group) {
        String[] first = group.getFirst().fields();
        String at = "%s line %d".formatted(origin, group.getFirst().line());
        try {
            String[] slices = first[1].strip().split("/", -1);
            List<MigProfile> profiles = new ArrayList<>();
            for (Row row : group) {
                String[] f = row.fields();
                profiles.add(new MigProfile(
                        f[2].strip(),
                        Integer.parseInt(f[3].strip()),
                        Integer.parseInt(f[4].strip()),
                        Arrays.stream(f[5].strip().split("\\|"))
                                .map(String::strip)
                                .map(Integer::valueOf)
                                .toList()));
            }
            return new MigGeometry(
                    Arrays.stream(first[0].split("\\|")).map(String::strip).toList(),
                    Integer.parseInt(slices[0]),
                    Integer.parseInt(slices[1]),
                    profiles);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "%s: %s; a row is %s, e.g. NVIDIA A30,4/4,1g.6gb,1,1,0|1|2|3".formatted(at, e.getMessage(), HEADER),
                    e);
        }
    }
}
