package io.elasticgpu.node.health;

import io.elasticgpu.node.discovery.DiscoveryException;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.GpuEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * Feeds the driver's events into {@link CardHealth} on one virtual thread, checks for recoveries between waits, and
 * calls {@code changed} after every change (to resend device lists and republish the node's inventory).
 */
public final class HealthWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthWatch.class);
    private static final Duration WAIT = Duration.ofSeconds(1);

    private final GpuBackend backend;
    private final CardHealth health;
    private final Runnable changed;
    private final Thread loop;
    private volatile boolean closed;

    public HealthWatch(GpuBackend backend, CardHealth health, Runnable changed) {
        this.backend = backend;
        this.health = health;
        this.changed = changed;
        this.loop = Thread.ofVirtual().name("egpu-health").start(this::run);
    }

    private void run() {
        while (!closed) {
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
                return;
            } catch (DiscoveryException e) {
                LOG.error("watching GPU events failed: {}", e.getMessage());
                try {
                    Thread.sleep(WAIT);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        loop.interrupt();
    }
}
