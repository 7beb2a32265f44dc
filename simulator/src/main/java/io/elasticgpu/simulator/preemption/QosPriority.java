package io.elasticgpu.simulator.preemption;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pod priorities by the openb trace's {@code qos} column, the rule of this replay: latency-sensitive work first.
 * {@code LS} and {@code Guaranteed} are 3, {@code Burstable} 2, {@code BE} (best effort) 1; a pod the column does not
 * name, 0. Clones the arrival order adds ({@code <name>-tuned-<n>}) have their original's priority.
 */
public final class QosPriority {

    private final Map<String, Integer> byName;

    private QosPriority(Map<String, Integer> byName) {
        this.byName = byName;
    }

    /** The priority a {@code qos} value gives. */
    public static int of(String qos) {
        return switch (qos) {
            case "LS", "Guaranteed" -> 3;
            case "Burstable" -> 2;
            case "BE" -> 1;
            default -> 0;
        };
    }

    /**
     * Reads the {@code name} and {@code qos} columns of an openb pod list (plain CSV: its cells hold no commas).
     *
     * @throws IllegalArgumentException when the file has no {@code qos} column
     */
    public static QosPriority read(Path podList) {
        List<String> lines;
        try {
            lines = Files.readAllLines(podList);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + podList, e);
        }
        List<String> header = Arrays.asList(lines.getFirst().split(",", -1));
        int name = header.indexOf("name");
        int qos = header.indexOf("qos");
        if (name < 0 || qos < 0) {
            throw new IllegalArgumentException("%s: no name and qos columns (header %s); the multigpu lists have no qos"
                    .formatted(podList, header));
        }
        Map<String, Integer> out = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            if (cells.length > Math.max(name, qos)) {
                out.put(cells[name], of(cells[qos]));
            }
        }
        return new QosPriority(Map.copyOf(out));
    }

    /** The priority of pod {@code name} (a clone's, its original's). */
    public int priority(String name) {
        int tuned = name.indexOf("-tuned-");
        return byName.getOrDefault(tuned < 0 ? name : name.substring(0, tuned), 0);
    }

    /** How many pods of the list have each priority. */
    public Map<Integer, Long> counts() {
        Map<Integer, Long> out = new HashMap<>();
        byName.values().forEach(p -> out.merge(p, 1L, Long::sum));
        return out;
    }
}
