package io.elasticgpu.simulator.trace;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Reads the Alibaba GPU cluster trace ({@code cluster-trace-gpu-v2023}, "openb"): a node list
 * ({@code sn,cpu_milli,memory_mib,gpu,model}) and a pod list ({@code name,cpu_milli,memory_mib,num_gpu,gpu_milli}
 * and optionally {@code gpu_spec}; the {@code multigpu*} files have only the first five columns). Times, QoS and
 * phase are not read: the replay is arrival only.
 */
public final class OpenbTrace {

    /** The node list every openb pod list is replayed on, looked for beside the pod list. */
    public static final String GPU_NODE_LIST = "openb_node_list_gpu_node.csv";

    /** Pods per node the replay allows, as the paper's simulator does. */
    public static final int MAX_PODS_PER_NODE = 1001;

    /** Device memory per model where it is public; the trace's internal models (G1, G2, G3) have none. */
    private static final Map<String, Long> MEMORY_MIB =
            Map.of("P100", 16_384L, "V100M16", 16_384L, "V100M32", 32_768L, "T4", 15_360L, "A10", 24_576L);

    private static final int MAX_CARDS_PER_NODE = 64;

    private OpenbTrace() {}

    /** Reads a pod list and the node list beside it ({@value #GPU_NODE_LIST}). */
    public static Trace read(Path podList) {
        Path parent = podList.toAbsolutePath().getParent();
        return read(podList, parent.resolve(GPU_NODE_LIST));
    }

    public static Trace read(Path podList, Path nodeList) {
        List<TracePod> pods = readPods(podList);
        if (!Files.exists(nodeList)) {
            throw new TraceFormatException(nodeList, "no such file; give the node list with --nodes");
        }
        String name = podList.getFileName().toString().replaceFirst("\\.csv$", "");
        return new Trace(name, readNodes(nodeList), pods);
    }

    public static List<Node> readNodes(Path file) {
        CsvRows csv = CsvRows.read(file, List.of("sn", "cpu_milli", "memory_mib", "gpu", "model"));
        List<Node> nodes = new ArrayList<>(csv.size());
        for (int row = 0; row < csv.size(); row++) {
            String name = csv.text(row, "sn");
            if (name.isEmpty()) {
                throw csv.error(row, "sn", "expected a node name, found an empty cell");
            }
            long cpu = csv.number(row, "cpu_milli", 0, Long.MAX_VALUE);
            long memory = csv.number(row, "memory_mib", 0, Long.MAX_VALUE);
            int gpus = (int) csv.number(row, "gpu", 0, MAX_CARDS_PER_NODE);
            String model = csv.text(row, "model");
            if (gpus > 0 && model.isEmpty()) {
                throw csv.error(
                        row,
                        "model",
                        "expected the GPU model of a node with %d GPUs, found an empty cell".formatted(gpus));
            }
            List<Card> cards = new ArrayList<>(gpus);
            for (int i = 0; i < gpus; i++) {
                cards.add(Card.of(i, name + "/gpu" + i, model, MEMORY_MIB.getOrDefault(model, 0L)));
            }
            nodes.add(Node.of(name, cpu, memory, MAX_PODS_PER_NODE, cards));
        }
        if (nodes.isEmpty()) {
            throw new TraceFormatException(file, "no nodes; expected one row per node after the header");
        }
        return nodes;
    }

    public static List<TracePod> readPods(Path file) {
        CsvRows csv = CsvRows.read(file, List.of("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"));
        boolean hasSpec = csv.has("gpu_spec");
        List<TracePod> pods = new ArrayList<>(csv.size());
        // Pods of one shape share one Ask: scoring caches then match by identity, the cheap way.
        Map<Ask, Ask> canonicalAsks = new java.util.HashMap<>();
        for (int row = 0; row < csv.size(); row++) {
            String name = csv.text(row, "name");
            if (name.isEmpty()) {
                throw csv.error(row, "name", "expected a pod name, found an empty cell");
            }
            long cpu = csv.number(row, "cpu_milli", 0, Long.MAX_VALUE);
            long memory = csv.number(row, "memory_mib", 0, Long.MAX_VALUE);
            int gpus = (int) csv.number(row, "num_gpu", 0, MAX_CARDS_PER_NODE);
            int milli = (int) csv.number(row, "gpu_milli", 0, Card.WHOLE);
            List<String> models = hasSpec ? models(csv.text(row, "gpu_spec")) : List.of();
            if (gpus > 0 && milli == 0) {
                throw csv.error(
                        row, "gpu_milli", "expected 1..1000 milli-GPU for a pod with %d GPUs, found 0".formatted(gpus));
            }
            if (gpus == 0 && milli > 0) {
                throw csv.error(
                        row,
                        "num_gpu",
                        "expected at least 1 GPU for a pod asking %d milli-GPU, found 0".formatted(milli));
            }
            Ask ask = canonicalAsks.computeIfAbsent(new Ask(cpu, memory, gpus, milli, 0, models), r -> r);
            pods.add(new TracePod(name, ask));
        }
        if (pods.isEmpty()) {
            throw new TraceFormatException(file, "no pods; expected one row per pod after the header");
        }
        return pods;
    }

    /** {@code gpu_spec} as written: models separated by {@code |}, in the order given, duplicates kept. */
    private static List<String> models(String spec) {
        if (spec.isEmpty() || spec.equals("nan")) {
            return List.of();
        }
        return Arrays.stream(spec.split("\\|")).filter(m -> !m.isBlank()).toList();
    }
}
