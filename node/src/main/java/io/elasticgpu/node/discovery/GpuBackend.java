package io.elasticgpu.node.discovery;

import java.time.Duration;
import java.util.List;

/**
 * Where GPUs come from: NVML on a real node ({@link NvmlBackend}), a file on a machine without GPUs
 * ({@link SimulatedBackend}). Implementations are safe for one discovering thread and one event-waiting thread at
 * once.
 */
public interface GpuBackend extends AutoCloseable {

    /** A short name for logs and errors: {@code nvml} or {@code simulated}. */
    String name();

    /**
     * Every card, its properties and the links between cards.
     *
     * @throws DiscoveryException when the driver cannot be asked, saying what to check
     */
    Hardware discover();

    /**
     * Waits up to {@code timeout} for driver events on any card and returns those that arrived (empty on timeout).
     *
     * @throws DiscoveryException when waiting itself fails (not when a card reports an error: that is an event)
     */
    List<GpuEvent> awaitEvents(Duration timeout) throws InterruptedException;

    /** Whether the driver answers queries about {@code card} right now; a card that does not stays unhealthy. */
    boolean answers(int card);

    @Override
    void close();
}
