package io.elasticgpu.node.isolation;

import io.elasticgpu.node.isolation.MpsNamespaces.Held;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The shares the MPS v3 layout holds, by key in the order they were first held, each written through to its record
 * ({@link V3Records}) whenever it changes; and which of them this agent has confirmed, their namespace set or read
 * back by it since it started. Not thread-safe: {@link MpsNamespaces} calls it under its lock.
 */
final class HeldShares {

    private final V3Records records;
    private final Map<String, Held> held = new LinkedHashMap<>();
    private final Set<String> confirmed = new HashSet<>(); // shares whose namespace this agent set or read back

    HeldShares(V3Records records) {
        this.records = records;
    }

    /** Takes the shares recorded on disk, as a restarted agent does; none is confirmed yet. */
    List<Held> adopt() {
        List<Held> recorded = records.shares();
        recorded.forEach(h -> held.put(h.share().key(), h));
        return recorded;
    }

    Held get(String key) {
        return held.get(key);
    }

    List<Held> all() {
        return List.copyOf(held.values());
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** The shares held on the server. */
    List<Held> on(String server) {
        return held.values().stream().filter(h -> h.server().equals(server)).toList();
    }

    /** The servers of the shares held, each once. */
    List<String> servers() {
        return held.values().stream().map(Held::server).distinct().toList();
    }

    /** The key of every record on disk, readable or not. */
    Set<String> recorded() {
        return records.keys();
    }

    /** Holds the share as {@code h} from now on, and records it so. */
    void put(Held h) {
        held.put(h.share().key(), h);
        records.write(h);
    }

    /** {@link #put}, with its namespace set or read back by this agent. */
    void confirm(Held h) {
        put(h);
        confirmed.add(h.share().key());
    }

    boolean confirmed(String key) {
        return confirmed.contains(key);
    }

    /** Holds the share no more; its record stays until {@link #forget}. */
    void remove(String key) {
        held.remove(key);
    }

    /** Drops the share's record and whether it was confirmed. */
    void forget(String key) {
        records.delete(key);
        confirmed.remove(key);
    }
}
