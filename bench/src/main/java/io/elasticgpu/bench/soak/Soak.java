package io.elasticgpu.bench.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One soak: the cluster, the users' load and the auditor running side by side for the asked time while the faults
 * follow their schedule; then everything taken away is given back, the pods are drained, and the auditor checks that
 * nothing was left behind.
 */
public final class Soak {

    private static final Duration AUDIT_EVERY = Duration.ofSeconds(3);
    /** How often each of our JVMs' heap is measured after a full collection. */
    private static final Duration HEAP_EVERY = Duration.ofMinutes(1);
    /** The heap's slope is fitted over the run's last this many minutes (or its last two thirds, if shorter). */
    private static final double SLOPE_MINUTES = 40;
    /** A 5xx answered by one of our HTTP endpoints is logged by it as this (HttpEndpoint, level ERROR). */
    private static final String SERVER_ERROR = "level=ERROR logger=HttpEndpoint";

    private Soak() {}

    public static SoakResult run(SoakOptions options, Path repository, Path workDir, PrintStream log)
            throws InterruptedException {
        log.printf(
                "soak: %d nodes for %s, a fault every %s, seed %d%n",
                options.nodes(), options.duration(), options.faultEvery(), options.seed());
        try (SoakCluster cluster = SoakCluster.start(options, repository, workDir)) {
            Violations violations = new Violations();
            Auditor auditor = new Auditor(cluster.client(), violations);
            Rss rss = new Rss();
            HeapSamples heap = new HeapSamples(workDir);
            log.println("soak: memory limits: " + cluster.cgroups().mode());
            PodShapes shapes = PodShapes.withClaims(options.trace(), cluster.schedulerName());
            try (Load load = new Load(
                            cluster.client(),
                            shapes,
                            options.seed(),
                            cluster.capacityMilli(),
                            options.duration(),
                            violations);
                    ScheduledExecutorService users = Executors.newSingleThreadScheduledExecutor();
                    ScheduledExecutorService audit = Executors.newSingleThreadScheduledExecutor();
                    ScheduledExecutorService heapEvery = Executors.newSingleThreadScheduledExecutor()) {
                Faults faults = new Faults(cluster, load, options);
                long start = System.nanoTime();
                users.scheduleWithFixedDelay(quietly(load::step, log), 0, 1, TimeUnit.SECONDS);
                audit.scheduleWithFixedDelay(
                        quietly(
                                () -> {
                                    auditor.sample();
                                    rss.sample(cluster.pids());
                                },
                                log),
                        AUDIT_EVERY.toMillis(),
                        AUDIT_EVERY.toMillis(),
                        TimeUnit.MILLISECONDS);
                List<SoakResult.Pods> pods = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
                heapEvery.scheduleAtFixedRate(
                        quietly(
                                () -> {
                                    pods.add(new SoakResult.Pods(
                                            Math.round((System.nanoTime() - start) / 60e7) / 100.0,
                                            load.live(),
                                            load.pending()));
                                    heap.sample(cluster.jvmPids());
                                },
                                log),
                        HEAP_EVERY.toSeconds() / 2,
                        HEAP_EVERY.toSeconds(),
                        TimeUnit.SECONDS);
                long end = start + options.duration().toNanos();
                // A fixed delay after each fault (one that took long, a restart on a loaded machine, delays the next),
                // and on past the duration until every kind of fault has happened once: on a loaded machine the slow
                // ones (an API server restart) can stretch a short soak so that one kind never came.
                long lastFault = start;
                for (long at = start + options.faultEvery().toNanos();
                        at < end || !faults.everyKindDone();
                        at = System.nanoTime() + options.faultEvery().toNanos()) {
                    sleep(Duration.ofNanos(Math.max(0, at - System.nanoTime())));
                    faults.next();
                    lastFault = System.nanoTime();
                }
                // The load goes on for a fault interval after the last fault at least, so that what it broke is seen
                // to mend under load (a kill that came past the duration is timed to its next bind like the others).
                long stop = Math.max(end, lastFault + options.faultEvery().toNanos());
                sleep(Duration.ofNanos(Math.max(0, stop - System.nanoTime())));
                double seconds = (System.nanoTime() - start) / 1e9;
                users.shutdownNow();
                users.awaitTermination(1, TimeUnit.MINUTES);
                faults.giveBack(true);
                log.println("soak: draining");
                load.drain(Duration.ofMinutes(3));
                audit.shutdownNow();
                heapEvery.shutdownNow();
                auditor.leftBehind(Duration.ofMinutes(2));
                serverErrors(cluster.logs(), violations);
                Map<String, Long> oomKills = cluster.cgroups().oomKills();
                oomKills.forEach((component, kills) -> {
                    if (kills > 0) {
                        violations.add("out-of-memory kill", component + " killed " + kills + " times at its limit");
                    }
                });
                long[] latency = load.latencies();
                List<Failovers.Kill> kills = faults.failovers().kills(load);
                double minutes = seconds / 60;
                return new SoakResult(
                        options.duration().toSeconds() / 60.0,
                        options.nodes(),
                        options.seed(),
                        load.created(),
                        load.claimed(),
                        load.bound(),
                        load.deleted(),
                        load.gaveUp(),
                        load.bound() / seconds,
                        percentile(latency, 50),
                        percentile(latency, 99),
                        auditor.samples(),
                        faults.counts(),
                        faults.log(),
                        violations.counts(),
                        violations.examples(),
                        rss.trends(),
                        new SoakResult.Memory(
                                cluster.cgroups().mode(),
                                oomKills,
                                cluster.cgroups().peakMib(),
                                heap.slopes(Math.max(minutes - SLOPE_MINUTES, minutes / 3)),
                                heap.series(),
                                List.copyOf(pods)),
                        Failovers.summary(kills),
                        kills);
            }
        }
    }

    /** A step that fails is logged and the next one runs: a scheduled task that throws would never run again. */
    private static Runnable quietly(Runnable step, PrintStream log) {
        return () -> {
            try {
                step.run();
            } catch (RuntimeException e) {
                log.println("soak: a step failed and is retried: " + e);
            }
        };
    }

    private static void serverErrors(Path logs, Violations violations) {
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("(extender|controller)-.*\\.log"))
                    .toList()) {
                try (Stream<String> lines = Files.lines(f)) {
                    lines.filter(l -> l.contains(SERVER_ERROR))
                            .forEach(l -> violations.add("5xx answered", f.getFileName() + ": " + l));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the logs in " + logs, e);
        }
    }

    /** The {@code pct}th percentile of sorted nanoseconds, in seconds; 0 for none. */
    static double percentile(long[] sortedNanos, int pct) {
        if (sortedNanos.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(pct / 100.0 * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, i)] / 1e9;
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
