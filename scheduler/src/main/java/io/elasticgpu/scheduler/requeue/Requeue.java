package io.elasticgpu.scheduler.requeue;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.scheduler.binding.ClusterApi;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Annotates a node with {@value Annotations#CAPACITY_FREED} when capacity frees up there while pods the extender
 * turned away may still be waiting. Nothing is queued when the extender has turned nobody away within
 * {@code window} (kube-scheduler retries every pod on its own after five minutes); a node is written at most once
 * per {@code interval}, coalescing what frees up meanwhile.
 *
 * <p>Time is the injected {@link InstantSource} only: {@link #writeDue()} writes what is due at that instant, and
 * {@link #every(Duration)} calls it on a timer in production, so that tests drive the clock and call it directly
 * instead of sleeping. Thread-safe.
 */
public final class Requeue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Requeue.class);
    /** kube-scheduler's podMaxInUnschedulablePodsDuration: after it, it retries every unschedulable pod anyway. */
    public static final Duration WINDOW = Duration.ofMinutes(5);

    public static final Duration INTERVAL = Duration.ofSeconds(1);
    /**
     * How often the production timer looks for due writes: a tenth of the interval, so a nudge is at most 100 ms late.
     * */
    public static final Duration TICK = Duration.ofMillis(100);

    private final ClusterApi api;
    private final InstantSource clock;
    private final Duration window;
    private final Duration interval;
    private final AtomicReference<Instant> lastRejection = new AtomicReference<>(Instant.MIN);
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final Map<String, Instant> lastWrite = new ConcurrentHashMap<>();
    private final AtomicReference<ScheduledExecutorService> timer = new AtomicReference<>();

    public Requeue(ClusterApi api, InstantSource clock, Duration window, Duration interval) {
        this.api = requireNonNull(api, "api");
        this.clock = requireNonNull(clock, "clock");
        this.window = requireNonNull(window, "window");
        this.interval = requireNonNull(interval, "interval");
    }

    /** The extender just turned a pod away from at least one node. */
    public void rejected() {
        lastRejection.set(clock.instant());
    }

    /**
     * Capacity may have freed up on {@code node}. Never blocks.
     *
     * @return whether this call queued a write (false: nobody was turned away lately, or one is queued already)
     */
    public boolean freed(String node) {
        return !clock.instant().isAfter(lastRejection.get().plus(window)) && queued.add(node);
    }

    /**
     * Writes every queued node whose last write is at least {@code interval} old, on virtual threads, and waits
     * for them.
     *
     * @return the nodes written (or tried: a node that cannot be annotated is logged and dropped)
     */
    public Set<String> writeDue() {
        Instant now = clock.instant();
        Set<String> due = new TreeSet<>();
        for (String node : queued) {
            if (!now.isBefore(lastWrite.getOrDefault(node, Instant.MIN).plus(interval)) && queued.remove(node)) {
                due.add(node); // what frees up from here on queues a new write
                lastWrite.put(node, now);
            }
        }
        if (due.isEmpty()) {
            return due; // the timer's usual case: nothing to start
        }
        try (ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
            due.forEach(node -> writers.submit(() -> write(node, now)));
        }
        return due;
    }

    /** Calls {@link #writeDue()} every {@code tick} on a daemon thread until {@link #close()}. */
    public void every(Duration tick) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("requeue").factory());
        if (!timer.compareAndSet(null, scheduler)) {
            scheduler.shutdown();
            throw new IllegalStateException("the requeue timer is already running");
        }
        scheduler.scheduleWithFixedDelay(this::writeDue, tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void write(String node, Instant now) {
        try {
            api.annotateNode(node, Annotations.CAPACITY_FREED, now.toString());
            LOG.debug("node={} capacity freed; nudged kube-scheduler", node);
        } catch (ClusterApi.ApiException e) {
            LOG.warn(
                    "node={} capacity freed but the node could not be annotated, so waiting pods may wait longer: {}",
                    node,
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        ScheduledExecutorService scheduler = timer.getAndSet(null);
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
