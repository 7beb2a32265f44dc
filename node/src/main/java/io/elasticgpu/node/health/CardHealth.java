package io.elasticgpu.node.health;

import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Mig;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of every card of the node. A critical event makes its card unhealthy at once; {@link #recover} brings
 * back a card whose last critical event is older than the quiet period and that the driver answers for again (no
 * peer does this: their cards stay unhealthy until the plugin restarts). A card out of service as discovered (its
 * MIG mode, {@link Mig#outOfService}) is unhealthy for the agent's life: what changes it is a reset, after which the
 * agent discovers the card again. Thread-safe.
 */
public final class CardHealth {

    private static final Logger LOG = LoggerFactory.getLogger(CardHealth.class);

    private final HealthPolicy policy;
    private final InstantSource clock;
    private final long[] lastCriticalMillis; // 0 = healthy
    private final String[] reason;
    private final boolean[] lostWork;
    private final String[] outOfService;

    public CardHealth(int cards, HealthPolicy policy, InstantSource clock) {
        this.policy = policy;
        this.clock = clock;
        this.lastCriticalMillis = new long[cards];
        this.reason = new String[cards];
        this.lostWork = new boolean[cards];
        this.outOfService = new String[cards];
    }

    /** The health of {@code gpus}, each card out of service as discovered already so. */
    public static CardHealth of(List<Gpu> gpus, HealthPolicy policy, InstantSource clock) {
        CardHealth health = new CardHealth(gpus.size(), policy, clock);
        for (Gpu g : gpus) {
            g.mig().outOfService().ifPresent(why -> {
                health.outOfService[g.index()] = why;
                LOG.warn("card {} ({}) is out of service: {}", g.index(), g.uuid(), why);
            });
        }
        return health;
    }

    /** Whether an event since {@code card} last became unhealthy ended the work running on it; false when healthy. */
    public synchronized boolean lostWork(int card) {
        return !healthy(card) && lostWork[card];
    }

    public synchronized boolean healthy(int card) {
        return card >= 0
                && card < lastCriticalMillis.length
                && lastCriticalMillis[card] == 0
                && outOfService[card] == null;
    }

    /** Whether {@code card} has had no critical event lately, whatever keeps it out of service otherwise. */
    public synchronized boolean quiet(int card) {
        return card >= 0 && card < lastCriticalMillis.length && lastCriticalMillis[card] == 0;
    }

    /** Why {@code card} is unhealthy, or empty. */
    public synchronized String reason(int card) {
        return outOfService[card] != null ? outOfService[card] : reason[card] == null ? "" : reason[card];
    }

    /** Applies {@code event}; true when it made a healthy card unhealthy, or an unhealthy one lose its work. */
    public synchronized boolean onEvent(GpuEvent event) {
        int c = event.card();
        if (c < 0 || c >= lastCriticalMillis.length || !policy.critical(event)) {
            return false;
        }
        boolean was = lastCriticalMillis[c] == 0 && outOfService[c] == null;
        boolean lostBefore = !was && lostWork[c];
        lostWork[c] = lostBefore || policy.losesWork(event);
        lastCriticalMillis[c] = Math.max(1, clock.millis()); // a later event restarts the quiet period
        reason[c] = switch (event) {
            case GpuEvent.Xid x -> "Xid " + x.code();
            case GpuEvent.DoubleBitEcc e -> "double-bit ECC error";
        };
        return was || lostWork[c] != lostBefore;
    }

    /** Marks healthy every unhealthy card that has been quiet long enough and {@code answers}; returns them. */
    public synchronized List<Integer> recover(IntPredicate answers) {
        List<Integer> back = new ArrayList<>();
        long now = clock.millis();
        for (int c = 0; c < lastCriticalMillis.length; c++) {
            if (lastCriticalMillis[c] != 0
                    && now - lastCriticalMillis[c] >= policy.quietPeriod().toMillis()
                    && answers.test(c)) {
                lastCriticalMillis[c] = 0;
                reason[c] = null;
                if (outOfService[c] == null) {
                    back.add(c);
                }
            }
        }
        return back;
    }
}
