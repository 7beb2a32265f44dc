package io.elasticgpu.node.health;

import io.elasticgpu.node.discovery.GpuEvent;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The health of every card of the node. A critical event makes its card unhealthy at once; {@link #recover} brings
 * back a card whose last critical event is older than the quiet period and that the driver answers for again (no
 * peer does this: their cards stay unhealthy until the plugin restarts). Thread-safe.
 */
public final class CardHealth {

    private final HealthPolicy policy;
    private final InstantSource clock;
    private final long[] lastCriticalMillis; // 0 = healthy
    private final String[] reason;
    private final boolean[] lostWork;

    public CardHealth(int cards, HealthPolicy policy, InstantSource clock) {
        this.policy = policy;
        this.clock = clock;
        this.lastCriticalMillis = new long[cards];
        this.reason = new String[cards];
        this.lostWork = new boolean[cards];
    }

    /** Whether an event since {@code card} last became unhealthy ended the work running on it; false when healthy. */
    public synchronized boolean lostWork(int card) {
        return !healthy(card) && lostWork[card];
    }

    public synchronized boolean healthy(int card) {
        return card >= 0 && card < lastCriticalMillis.length && lastCriticalMillis[card] == 0;
    }

    /** Why {@code card} is unhealthy, or empty. */
    public synchronized String reason(int card) {
        return reason[card] == null ? "" : reason[card];
    }

    /** Applies {@code event}; true when it made a healthy card unhealthy, or an unhealthy one lose its work. */
    public synchronized boolean onEvent(GpuEvent event) {
        int c = event.card();
        if (c < 0 || c >= lastCriticalMillis.length || !policy.critical(event)) {
            return false;
        }
        boolean was = lastCriticalMillis[c] == 0;
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
                back.add(c);
            }
        }
        return back;
    }
}
