package io.elasticgpu.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one process has cost so far, from {@code /proc}: CPU seconds (user and system) and its peak resident memory.
 *
 * @param alive false when the process had exited (then the figures are 0)
 */
public record ProcessUse(double cpuSeconds, long peakRssMib, boolean alive) {

    /** Linux's clock ticks per second for {@code /proc/<pid>/stat}, on every architecture it runs on here. */
    private static final double TICKS = 100.0;

    public static ProcessUse of(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // After the command name, which may hold spaces: field 3 (state) first, then utime and stime at 14 and 15.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
            long hwmKib = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("VmHWM:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
                    .findFirst()
                    .orElse(0);
            return new ProcessUse(cpu, hwmKib / 1024, !f[0].equals("Z"));
        } catch (IOException | RuntimeException gone) {
            return new ProcessUse(0, 0, false);
        }
    }

    /** CPU seconds each named process has used so far (0 for one that is gone). */
    public static java.util.Map<String, Double> cpu(java.util.Map<String, Long> pids) {
        java.util.Map<String, Double> cpu = new java.util.LinkedHashMap<>();
        pids.forEach((name, pid) -> cpu.put(name, of(pid).cpuSeconds()));
        return cpu;
    }

    /** CPU seconds per second of each process that used {@code cpuSeconds} over {@code seconds}. */
    public static java.util.Map<String, Double> perSecond(java.util.Map<String, Double> cpuSeconds, double seconds) {
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("a rate needs a positive time, not " + seconds + " s");
        }
        java.util.Map<String, Double> rates = new java.util.LinkedHashMap<>();
        cpuSeconds.forEach((name, s) -> rates.put(name, s / seconds));
        return rates;
    }

    /**
     * What each process of {@code cpuSeconds} used over {@code seconds} beyond what its idle rate ({@code idle}, CPU
     * seconds per second) would have used anyway, never below 0; a process without an idle rate counts in full.
     */
    public static java.util.Map<String, Double> aboveIdle(
            java.util.Map<String, Double> cpuSeconds, java.util.Map<String, Double> idle, double seconds) {
        java.util.Map<String, Double> above = new java.util.LinkedHashMap<>();
        cpuSeconds.forEach((name, s) -> above.put(name, Math.max(0, s - idle.getOrDefault(name, 0.0) * seconds)));
        return above;
    }

    /** CPU seconds each process of {@code before} has used since. */
    public static java.util.Map<String, Double> cpuSince(
            java.util.Map<String, Double> before, java.util.Map<String, Long> pids) {
        java.util.Map<String, Double> now = cpu(pids);
        java.util.Map<String, Double> used = new java.util.LinkedHashMap<>();
        before.forEach((name, then) -> used.put(name, Math.max(0, now.getOrDefault(name, then) - then)));
        return used;
    }
}
