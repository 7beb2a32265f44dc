package io.elasticgpu.bench.soak;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Once a minute, each of our JVMs' heap after a full collection ({@code jcmd GC.run}, then {@code GC.heap_info}: what
 * a leak cannot hide from) and its RSS; and each component's slope over the end of the run, so that heap growth and
 * a leak can be told apart.
 *
 * <p>A component killed by the faults restarts with a fresh heap, so one line through all its samples would mostly
 * measure its restarts. The slope is therefore the one common to its processes (each its own intercept): the
 * pooled least-squares slope of the samples about each process's own means.
 */
public final class HeapSamples {

    /**
     * One minute's figures of one process.
     *
     * @param minute  since the soak began
     * @param pid     the process (a new one after each restart)
     * @param heapMib heap used after a full collection, MiB; -1 when jcmd did not answer
     * @param rssMib  resident memory, MiB
     */
    public record Sample(double minute, long pid, long heapMib, long rssMib) {}

    /**
     * A component's growth over the window.
     *
     * @param fromMinute      the window's start
     * @param heapMibPerMinute post-GC heap, MiB a minute (the processes' common slope)
     * @param rssMibPerMinute  RSS, the same way
     * @param samples         in the window
     * @param processes       processes in the window
     */
    public record Slope(
            double fromMinute, double heapMibPerMinute, double rssMibPerMinute, int samples, int processes) {}

    /** {@code DefNew total 116224K, used 5123K [...]}: a generation's line (its spaces' lines are indented). */
    private static final Pattern GENERATION = Pattern.compile("^\\S+\\s+total \\d+K, used (\\d+)K", Pattern.MULTILINE);

    private final Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    private final Path commands;
    private final long start = System.nanoTime();
    private final Map<String, List<Sample>> series = new LinkedHashMap<>();

    HeapSamples(Path workDir) {
        this.commands = workDir.resolve("heap-after-gc.jcmd");
        try {
            Files.createDirectories(workDir);
            Files.writeString(commands, "GC.run\nGC.heap_info\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + commands, e);
        }
    }

    /** One sample of each JVM, by component name. */
    void sample(Map<String, Long> jvms) {
        double minute = (System.nanoTime() - start) / 60e9;
        jvms.forEach((component, pid) -> {
            long heap = heapAfterGc(pid).orElse(-1);
            OptionalLong rssKib = Rss.read(pid);
            if (rssKib.isPresent()) {
                long rss = rssKib.getAsLong() / 1024;
                synchronized (series) {
                    series.computeIfAbsent(component, c -> new ArrayList<>())
                            .add(new Sample(Math.round(minute * 100) / 100.0, pid, heap, rss));
                }
            }
        });
    }

    Map<String, List<Sample>> series() {
        synchronized (series) {
            Map<String, List<Sample>> copy = new LinkedHashMap<>();
            series.forEach((c, s) -> copy.put(c, List.copyOf(s)));
            return copy;
        }
    }

    /** Each component's slopes over the samples from {@code fromMinute} on. */
    Map<String, Slope> slopes(double fromMinute) {
        Map<String, Slope> slopes = new LinkedHashMap<>();
        series().forEach((component, samples) -> {
            List<Sample> window = samples.stream()
                    .filter(s -> s.minute() >= fromMinute && s.heapMib() >= 0)
                    .toList();
            slopes.put(
                    component,
                    new Slope(
                            fromMinute,
                            pooledSlope(window, Sample::heapMib),
                            pooledSlope(window, Sample::rssMib),
                            window.size(),
                            (int) window.stream()
                                    .mapToLong(Sample::pid)
                                    .distinct()
                                    .count()));
        });
        return slopes;
    }

    /** The least-squares slope common to every process's samples, each about its own means; 0 without spread. */
    static double pooledSlope(List<Sample> samples, java.util.function.ToLongFunction<Sample> value) {
        Map<Long, List<Sample>> byPid = new LinkedHashMap<>();
        samples.forEach(
                s -> byPid.computeIfAbsent(s.pid(), p -> new ArrayList<>()).add(s));
        double sxy = 0;
        double sxx = 0;
        for (List<Sample> one : byPid.values()) {
            double mx = one.stream().mapToDouble(Sample::minute).average().orElse(0);
            double my = one.stream().mapToLong(value).average().orElse(0);
            for (Sample s : one) {
                sxy += (s.minute() - mx) * (value.applyAsLong(s) - my);
                sxx += (s.minute() - mx) * (s.minute() - mx);
            }
        }
        return sxx == 0 ? 0 : Math.round(sxy / sxx * 1000) / 1000.0;
    }

    private OptionalLong heapAfterGc(long pid) {
        try {
            // Output to a file, so that a jcmd that never answers is ended by the timeout, not read forever.
            Path out = Files.createTempFile(commands.getParent(), "jcmd-" + pid + "-", ".out");
            try {
                Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "-f", commands.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
                if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    return OptionalLong.empty();
                }
                return usedMib(Files.readString(out, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    /** The heap used, MiB: the sum of the generations' {@code used} in {@code GC.heap_info}'s output. */
    static OptionalLong usedMib(String heapInfo) {
        Matcher m = GENERATION.matcher(heapInfo);
        long kib = 0;
        boolean any = false;
        while (m.find()) {
            kib += Long.parseLong(m.group(1));
            any = true;
        }
        return any ? OptionalLong.of(kib / 1024) : OptionalLong.empty();
    }
}
