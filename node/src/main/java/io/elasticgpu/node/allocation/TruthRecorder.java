package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records in each pod what its containers got, once kubelet's records show who got what (so a guess among pods of
 * the same shape is corrected before it is written). Runs on one scheduler thread: {@link #SOON} after an
 * allocation (a burst of them is one look), and every {@link #PERIOD} anyway; writes a pod only when what it would
 * write changed.
 */
public final class TruthRecorder implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TruthRecorder.class);
    static final Duration PERIOD = Duration.ofSeconds(2);
    private static final Duration SOON = Duration.ofMillis(200);

    private final Supplier<Map<ContainerKey, ContainerGrant>> grants;
    private final java.util.function.BooleanSupplier pending;
    private final PodSource pods;
    private final TruthWriter writer;
    private final Map<String, Map<String, List<Share>>> written = new HashMap<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("egpu-truth-recorder").factory());
    private final AtomicBoolean soon = new AtomicBoolean();

    /**
     * @param grants  what kubelet's records say each container got (reads them)
     * @param pending whether some answered call is not in kubelet's records yet (cheap)
     */
    public TruthRecorder(
            Supplier<Map<ContainerKey, ContainerGrant>> grants,
            java.util.function.BooleanSupplier pending,
            PodSource pods,
            TruthWriter writer) {
        this.grants = grants;
        this.pending = pending;
        this.pods = pods;
        this.writer = writer;
        loop.scheduleWithFixedDelay(() -> record(true), PERIOD.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Something was allocated: look again soon (kubelet records it right after our answer; a burst is one look). */
    public void allocated() {
        if (soon.compareAndSet(false, true)) {
            try {
                loop.schedule(
                        () -> {
                            soon.set(false);
                            record(pending.getAsBoolean());
                        },
                        SOON.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                soon.set(false);
            }
        }
    }

    private void record(boolean worthALook) {
        if (!worthALook) {
            return; // nothing new since the last look
        }
        try {
            recordOnce();
        } catch (RuntimeException e) {
            LOG.warn("recording allocations failed: {}", e.getMessage());
        }
    }

    /** Writes what changed; returns the number of pods written. */
    int recordOnce() {
        Map<String, Map<String, List<Share>>> given = new HashMap<>();
        Map<String, Map<String, String>> notes = new HashMap<>();
        grants.get().forEach((k, g) -> {
            String pod = k.namespace() + "/" + k.pod();
            given.computeIfAbsent(pod, p -> new LinkedHashMap<>()).put(k.container(), g.shares());
            if (!g.note().isEmpty()) {
                notes.computeIfAbsent(pod, p -> new LinkedHashMap<>()).put(k.container(), g.note());
            }
        });
        int n = 0;
        for (NodePod pod : pods.pods()) {
            String id = pod.namespace() + "/" + pod.name();
            Map<String, List<Share>> got = given.get(id);
            if (got == null || got.equals(written.get(id))) {
                continue;
            }
            if (pod.allocated()
                    && pod.plan().map(a -> got.equals(a.containers())).orElse(false)) {
                written.put(id, Map.copyOf(got)); // recorded already, e.g. by this agent before a restart
                continue;
            }
            boolean complete = pod.containers().stream().allMatch(c -> got.containsKey(c.name()));
            writer.record(pod, got, notes.getOrDefault(id, Map.of()), complete);
            written.put(id, Map.copyOf(got));
            n++;
        }
        written.keySet().retainAll(given.keySet());
        return n;
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
