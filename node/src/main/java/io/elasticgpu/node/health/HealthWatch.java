package io.elasticgpu.node.health;

import io.elasticgpu.node.discovery.DiscoveryException;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the driver's events into {@link CardHealth} on one scheduler thread, checks for recoveries between waits, and
 * calls {@code changed} after every change (to resend device lists and republish the node's inventory). Each look is
 * one task: the next starts at once after a wait, or {@link #WAIT} later after NVML failed.
 */
public final class HealthWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthWatch.class);
    private static final Duration WAIT = Duration.ofSeconds(1);

    private final GpuBackend backend;
    private final CardHealth health;
    private final Runnable changed;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("egpu-health").factory());

    public HealthWatch(GpuBackend backend, CardHealth health, Runnable changed) {
        this.backend = backend;
        this.health = health;
        this.changed = changed;
        loop.execute(this::look);
    }

    private void look() {
        Duration next = Duration.ZERO;
        try {
            boolean any = false;
            for (GpuEvent e : backend.awaitEvents(WAIT)) {
                if (health.onEvent(e)) {
                    LOG.warn("card {} is unhealthy: {}", e.card(), health.reason(e.card()));
                    any = true;
                }
            }
            List<Integer> back = health.recover(backend::answers);
            back.forEach(c -> LOG.info("card {} is healthy again", c));
            if (any || !back.isEmpty()) {
                changed.run();
            }
        } catch (InterruptedException e) {
            return; // closing
        } catch (DiscoveryException e) {
            LOG.error("watching GPU events failed: {}", e.getMessage());
            next = WAIT;
        }
        try {
            loop.schedule(this::look, next.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closing
        }
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
