package io.elasticgpu.bench;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A variant of an openb pod list in which a share of the GPU pods name the GPU models they accept, as the FGD
 * artifact's {@code gpuspec} traces are the default trace with a share of its GPU pods given a {@code gpu_spec}
 * (Weng et al., USENIX ATC'23, section 6.5). Every other cell, and every pod without GPU, is left as it is. Which pods
 * name models is drawn uniformly from the GPU pods with the seed; what each names is drawn from a {@link Mix}, among
 * the model sets of which at least one model has a node that can hold the pod alone (its cards, CPU and memory).
 * Pure: the same input and seed give the same output.
 */
final class TraceVariant {

    /** What pods name, by the kind of pod. */
    enum Mix {
        /**
         * The mix of a production cluster as the artifact's {@code gpuspec} files show it: a slice of a card names an
         * inference card (T4 two times in three, else P100); a one-card pod names T4 in 40 %, G2 in 20 %, a V100 in
         * 15 %, an older card (P100 or a V100) in 10 %, G3 in 5 % and a broad set in 10 %; a pod of several cards a
         * training model (G2, G3 or a V100, alike).
         */
        PRODUCTION,
        /**
         * Teams pinned to node pools sized to their demand: one model, drawn in proportion to its cards among the
         * models whose nodes can hold the pod, so that every model is asked about as much as it has.
         */
        CAPACITY,
        /** Every chosen pod names the same models, given with the mix ({@code named:V100M32|G3}): a wanted model. */
        NAMED
    }

    /** The result: the pod list's lines and how many GPU pods name models, before and after. */
    record Result(List<String> lines, int gpuPods, int namedBefore, int named) {}

    private static final Map<String, Double> SLICE = weights("T4", 2, "P100", 1);
    private static final Map<String, Double> ONE_CARD = weights(
            "T4", 40,
            "G2", 20,
            "V100M16|V100M32", 15,
            "P100|V100M16|V100M32", 10,
            "G3", 5,
            "P100|T4|V100M16|V100M32", 5,
            "G2|P100|T4|V100M16|V100M32", 5);
    private static final Map<String, Double> SEVERAL_CARDS = weights("G2", 1, "G3", 1, "V100M16|V100M32", 1);

    private TraceVariant() {}

    /**
     * The variant of {@code lines} (a pod list with its header) in which {@code share} of the GPU pods name models;
     * pods that name models already count, and keep what they name.
     *
     * @param named the models every chosen pod names, for {@link Mix#NAMED}; ignored otherwise
     * @throws IllegalArgumentException when too few GPU pods can be given models to reach the share
     */
    static Result of(List<String> lines, List<Node> nodes, double share, Mix mix, String named, long seed) {
        requireNonNull(mix, "mix");
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("the pod list is empty; expected a header line");
        }
        List<String> header =
                new ArrayList<>(Arrays.asList(lines.getFirst().strip().split(",", -1)));
        int cpu = column(header, "cpu_milli");
        int memory = column(header, "memory_mib");
        int gpus = column(header, "num_gpu");
        int milli = column(header, "gpu_milli");
        int spec = header.indexOf("gpu_spec");
        if (spec < 0) {
            header.add("gpu_spec");
            spec = header.size() - 1;
        }
        List<String[]> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (!line.isBlank()) {
                String[] cells = Arrays.copyOf(line.split(",", -1), header.size());
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i] == null ? "" : cells[i];
                }
                rows.add(cells);
            }
        }
        List<Integer> open = new ArrayList<>();
        int gpuPods = 0;
        int before = 0;
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            if (Long.parseLong(r[gpus].strip()) > 0) {
                gpuPods++;
                if (r[spec].isBlank() || r[spec].equals("nan")) {
                    open.add(i);
                } else {
                    before++;
                }
            }
        }
        int target = (int) Math.round(share * gpuPods);
        SplittableRandom random = new SplittableRandom(seed);
        shuffle(open, random);
        int count = before;
        for (int i = 0; i < open.size() && count < target; i++) {
            String[] r = rows.get(open.get(i));
            Pod pod = new Pod(
                    Long.parseLong(r[cpu].strip()),
                    Long.parseLong(r[memory].strip()),
                    Integer.parseInt(r[gpus].strip()),
                    Integer.parseInt(r[milli].strip()));
            Map<String, Double> choices = choices(pod, nodes, mix, named);
            if (!choices.isEmpty()) {
                r[spec] = draw(choices, random);
                count++;
            }
        }
        if (count < target) {
            throw new IllegalArgumentException(
                    "only %d of %d GPU pods can name models under this mix, fewer than the %d asked"
                            .formatted(count, gpuPods, target));
        }
        List<String> out = new ArrayList<>();
        out.add(String.join(",", header));
        rows.forEach(r -> out.add(String.join(",", r)));
        return new Result(out, gpuPods, before, count);
    }

    private record Pod(long cpu, long memory, int cards, int milli) {
        boolean fits(Node n) {
            return n.cardCount() >= cards && n.cpuMilli() >= cpu && n.memoryMib() >= memory;
        }
    }

    /** The model sets {@code pod} may name under {@code mix}, weighted: those with a model that can hold it. */
    private static Map<String, Double> choices(Pod pod, List<Node> nodes, Mix mix, String named) {
        Map<String, Double> base = switch (mix) {
            case PRODUCTION -> pod.cards() > 1 ? SEVERAL_CARDS : pod.milli() < 1000 ? SLICE : ONE_CARD;
            case CAPACITY -> {
                Map<String, Double> cards = new LinkedHashMap<>();
                nodes.stream()
                        .filter(pod::fits)
                        .forEach(n -> cards.merge(n.model(), (double) n.cardCount(), Double::sum));
                yield cards;
            }
            case NAMED -> Map.of(named, 1.0);
        };
        Map<String, Double> out = new LinkedHashMap<>();
        base.forEach((set, weight) -> {
            List<String> models = List.of(set.split("\\|"));
            if (nodes.stream().anyMatch(n -> models.contains(n.model()) && pod.fits(n))) {
                out.put(set, weight);
            }
        });
        return out;
    }

    private static String draw(Map<String, Double> weighted, SplittableRandom random) {
        double total =
                weighted.values().stream().mapToDouble(Double::doubleValue).sum();
        double u = random.nextDouble() * total;
        String last = null;
        for (Map.Entry<String, Double> e : weighted.entrySet()) {
            last = e.getKey();
            u -= e.getValue();
            if (u < 0) {
                break;
            }
        }
        return last;
    }

    private static void shuffle(List<Integer> list, SplittableRandom random) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Integer t = list.get(i);
            list.set(i, list.get(j));
            list.set(j, t);
        }
    }

    private static int column(List<String> header, String name) {
        int i = header.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("the pod list has no column " + name + "; its header is " + header);
        }
        return i;
    }

    private static Map<String, Double> weights(Object... pairs) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.put((String) pairs[i], ((Number) pairs[i + 1]).doubleValue());
        }
        return out;
    }
}
