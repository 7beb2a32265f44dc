package io.elasticgpu.scheduler.binding;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tidies the ledgers of nodes pods have left, a while after they left: the nodes are collected as the cache reports
 * them ({@link #left}, which must not block) and tidied together every {@code interval}, one read and at most one
 * write per node however many pods left it. Without it a deleted pod's reservation stays in its node's ledger until
 * the node's next bind.
 */
public final class LedgerTidying implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerTidying.class);
    /** Long enough to gather a node's departures into one write, short enough that a drained cluster soon looks it. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);

    private final Binder binder;
    private final Set<String> untidy = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("ledger-tidying").factory());

    public LedgerTidying(Binder binder, Duration interval) {
        this.binder = binder;
        timer.scheduleWithFixedDelay(this::tidy, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Something left {@code node}: its ledger is tidied at the next interval. */
    public void left(String node) {
        untidy.add(node);
    }

    /** Tidies every node collected since the last time; a node that fails is kept for the next. */
    void tidy() {
        for (String node : Set.copyOf(untidy)) {
            untidy.remove(node);
            try {
                binder.tidy(node);
            } catch (RuntimeException e) {
                untidy.add(node);
                LOG.warn("node={}: could not tidy its ledger, trying again later: {}", node, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
