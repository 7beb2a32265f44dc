package io.elasticgpu.node.isolation;

import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPS v3 namespaces' limits read back each round and set again where they changed: each share's pinned memory
 * limit and active thread percentage, from one {@code namespace list} of its server (a namespace's getters where the
 * list leaves a column out), and a namespace that is gone created again. Whoever reaches the daemon's main control
 * socket can change them; no container can. Remembers when each share's limits were last read back as set, the
 * {@link LimitDrift#since} of a drift. Not thread-safe: {@link MpsNamespaces} calls it under its lock.
 */
final class NamespaceLimits {

    private static final Logger LOG = LoggerFactory.getLogger(NamespaceLimits.class);
    private static final String PINNED = V3Control.PINNED;
    private static final String THREADS = V3Control.THREADS;

    private final V3Control v3;
    private final NamespaceSetup setup;
    private final InstantSource clock;
    private final Map<String, Instant> verified = new HashMap<>(); // share key -> when its limits last read back
    private final Map<String, String> unreadable = new HashMap<>(); // share key -> the answer last logged

    NamespaceLimits(V3Control v3, NamespaceSetup setup, InstantSource clock) {
        this.v3 = v3;
        this.setup = setup;
        this.clock = clock;
    }

    /** The share's limits were just set or read back as set by the agent. */
    void verified(String key) {
        verified.put(key, clock.instant());
    }

    /** The share was just held, its limits set: an answer logged as unreadable is logged again. */
    void held(String key) {
        verified(key);
        unreadable.remove(key);
    }

    void forget(String key) {
        verified.remove(key);
        unreadable.remove(key);
    }

    /** Reads the limits of the namespaces of {@code on}, the shares held on {@code server}, back; returns drifts. */
    List<LimitDrift> audit(String server, List<Held> on) {
        Map<String, Map<String, String>> rows = v3.namespaces(server);
        List<LimitDrift> drifts = new ArrayList<>();
        for (Held h : on) {
            MpsShare share = h.share();
            Instant since = verified.getOrDefault(share.key(), clock.instant());
            String pinned = NamespaceSetup.pinnedMib(share) + "M";
            String percent = Integer.toString(share.limits().threadPercent());
            Map<String, String> row = rows.get(h.namespace());
            if (row == null) {
                setup.ensureNamespace(h);
                LimitDrift d = new LimitDrift(
                        share, 0, "namespace " + h.namespace(), "(no such namespace)", pinned + ", " + percent, since);
                LOG.warn("MPS share {} ({}): {}", share.key(), share.holder(), d.describe());
                drifts.add(d);
                continue;
            }
            String foundPinned = row.containsKey(PINNED) ? row.get(PINNED) : setup.get(h, PINNED);
            String foundPercent = row.containsKey(THREADS) ? row.get(THREADS) : setup.get(h, THREADS);
            Optional<Boolean> samePinned = NamespaceSetup.samePinned(foundPinned, share);
            Optional<Boolean> samePercent = NamespaceSetup.samePercent(foundPercent, share);
            if (samePinned.isEmpty() || samePercent.isEmpty()) {
                String answer = foundPinned + " / " + foundPercent;
                if (!answer.equals(unreadable.put(share.key(), answer))) {
                    LOG.warn(
                            "MPS share {}: cannot read \"{}\" as namespace {}'s pinned memory limit and active thread"
                                    + " percentage; not checked",
                            share.key(),
                            answer,
                            h.namespace());
                }
            }
            List<LimitDrift> found = new ArrayList<>();
            if (!samePinned.orElse(true)) {
                found.add(new LimitDrift(
                        share, 0, "namespace %s %s".formatted(h.namespace(), PINNED), foundPinned, pinned, since));
            }
            if (!samePercent.orElse(true)) {
                found.add(new LimitDrift(
                        share, 0, "namespace %s %s".formatted(h.namespace(), THREADS), foundPercent, percent, since));
            }
            if (!found.isEmpty()) {
                setup.setLimits(h);
                found.forEach(d -> LOG.warn("MPS share {} ({}): {}", share.key(), share.holder(), d.describe()));
                drifts.addAll(found);
            } else if (samePinned.isPresent() && samePercent.isPresent()) {
                verified(share.key());
            }
        }
        return drifts;
    }
}
