package io.elasticgpu.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Each component's resident memory over the soak, from {@code /proc/<pid>/status}, per process incarnation (a
 * crashed and restarted component starts a new series): the trend is the first sample against the last of the
 * longest-lived incarnation.
 */
final class Rss {

    /** @param start the first sample, MiB, @param end the last, MiB, @param samples how many */
    public record Trend(long start, long end, int samples) {
        double growthPct() {
            return start == 0 ? 0 : 100.0 * (end - start) / start;
        }
    }

    private final Map<String, Map<Long, List<Long>>> series = new LinkedHashMap<>();

    synchronized void sample(Map<String, Long> pids) {
        pids.forEach((component, pid) -> read(pid)
                .ifPresent(kib -> series.computeIfAbsent(component, k -> new LinkedHashMap<>())
                        .computeIfAbsent(pid, k -> new ArrayList<>())
                        .add(kib / 1024)));
    }

    synchronized Map<String, Trend> trends() {
        Map<String, Trend> trends = new LinkedHashMap<>();
        series.forEach((component, byPid) -> byPid.values().stream()
                .max(java.util.Comparator.comparingInt(List::size))
                .ifPresent(s -> trends.put(component, new Trend(s.getFirst(), s.getLast(), s.size()))));
        return trends;
    }

    /** A process's VmRSS, KiB; empty once it is gone. */
    static OptionalLong read(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("\\D", "")));
                }
            }
        } catch (IOException | NumberFormatException gone) {
            // the process exited between listing and reading (a fault)
        }
        return OptionalLong.empty();
    }
}
