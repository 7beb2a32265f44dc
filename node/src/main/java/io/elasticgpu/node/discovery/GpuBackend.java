package io.elasticgpu.node.discovery;

import java.time.Duration;
import java.util.List;

/**
 * Where GPUs come from: NVML on a real node ({@link NvmlBackend}), a file on a machine without GPUs
 * ({@link SimulatedBackend}). Implementations are safe for one discovering thread and one event-waiting thread at
 * once; the per-card queries ({@link #processes}, {@link #utilization}, {@link #computeMode}) from any thread besides,
 * for a usage monitor or an MPS supervisor.
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

    /** Whether {@link #processes} and {@link #utilization} measure real processes (false: they are always empty). */
    default boolean measuresUsage() {
        return false;
    }

    /**
     * The processes holding memory on card {@code card}: NVML's compute-process list and its MPS-process list merged
     * by pid (an MPS client is in both), sorted by pid. Empty when the backend cannot tell. Safe from any thread.
     *
     * @throws DiscoveryException when the driver fails to answer, naming the function and the card
     */
    default List<GpuProcess> processes(int card) {
        return List.of();
    }

    /**
     * Per-process utilization samples of {@code card} newer than {@code sinceMicros} (NVML's timestamps,
     * microseconds; 0 for every sample NVML keeps); NVML keeps a short history. The newest sample per process, sorted
     * by pid. Empty when there are none or the card cannot say. Safe from any thread.
     *
     * @throws DiscoveryException when the driver fails to answer, naming the function and the card
     */
    default List<ProcessUtilization> utilization(int card, long sinceMicros) {
        return List.of();
    }

    /**
     * The card's compute mode. Safe from any thread.
     *
     * @throws DiscoveryException when the driver fails to answer or reports a mode {@link ComputeMode} does not know
     */
    default ComputeMode computeMode(int card) {
        return ComputeMode.DEFAULT;
    }

    @Override
    void close();
}
