package io.elasticgpu.scheduler.requeue;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.scheduler.binding.ClusterApi;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Annotates a node with {@value Annotations#CAPACITY_FREED} when capacity frees up there while pods the extender
 * turned away may still be waiting. Writes nothing when the extender has turned nobody away within
 * {@code window} (kube-scheduler retries every pod on its own after five minutes); writes at most once per
 * {@code interval} per node, coalescing what frees up meanwhile. Thread-safe; the writes run on virtual threads.
 */
public final class Requeue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Requeue.class);
    /** kube-scheduler's podMaxInUnschedulablePodsDuration: after it, it retries every unschedulable pod anyway. */
    public static final Duration WINDOW = Duration.ofMinutes(5);
    public static final Duration INTERVAL = Duration.ofSeconds(1);

    private final ClusterApi api;
    private final InstantSource clock;
    private final Duration window;
    private final Duration interval;
    private final AtomicReference<Instant> lastRejection = new AtomicReference<>(Instant.MIN);
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final Map<String, Instant> lastWrite = new ConcurrentHashMap<>();
    private final ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor();

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
        if (clock.instant().isAfter(lastRejection.get().plus(window)) || !queued.add(node)) {
            return false;
        }
        writers.submit(() -> write(node));
        return true;
    }

    private void write(String node) {
        try {
            Instant earliest = lastWrite.getOrDefault(node, Instant.MIN).plus(interval);
            Duration wait = Duration.between(clock.instant(), earliest);
            if (wait.isPositive()) {
                Thread.sleep(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        queued.remove(node); // what frees up from here on queues a new write
        Instant now = clock.instant();
        lastWrite.put(node, now);
        try {
            api.annotateNode(node, Annotations.CAPACITY_FREED, now.toString());
            LOG.debug("node={} capacity freed; nudged kube-scheduler", node);
        } catch (ClusterApi.ApiException e) {
            LOG.warn("node={} capacity freed but the node could not be annotated, so waiting pods may wait longer: {}",
                    node, e.getMessage());
        }
    }

    @Override
    public void close() {
        writers.shutdownNow();
    }
}
