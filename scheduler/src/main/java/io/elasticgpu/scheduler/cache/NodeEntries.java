package io.elasticgpu.scheduler.cache;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Each node's {@link Snapshot.Entry} by node name, immutable. A change returns a new table that shares all but one of
 * its {@value #BUCKETS} buckets with this one: the cache changes a node by copying a {@value #BUCKETS}th of the nodes,
 * and hands a snapshot out without copying any (at 5,000 nodes, a whole copy per filter call would cost a tenth of
 * its time). Thread-safe: immutable.
 */
final class NodeEntries {

    static final int BUCKETS = 64;
    static final NodeEntries EMPTY = new NodeEntries(Collections.nCopies(BUCKETS, Map.of()), 0);

    /** Never changed once made. */
    private final List<Map<String, Snapshot.Entry>> buckets;
    private final int size;

    private NodeEntries(List<Map<String, Snapshot.Entry>> buckets, int size) {
        this.buckets = buckets;
        this.size = size;
    }

    /** A node's entry, or null when it has none. */
    Snapshot.Entry get(String node) {
        return buckets.get(bucket(node)).get(node);
    }

    int size() {
        return size;
    }

    /** This table with {@code node}'s entry set to {@code entry}. */
    NodeEntries with(String node, Snapshot.Entry entry) {
        int i = bucket(node);
        Map<String, Snapshot.Entry> changed = new HashMap<>(buckets.get(i));
        boolean added = changed.put(node, entry) == null;
        return new NodeEntries(replaced(i, changed), added ? size + 1 : size);
    }

    /** This table without {@code node}'s entry; this one when it has none. */
    NodeEntries without(String node) {
        int i = bucket(node);
        if (!buckets.get(i).containsKey(node)) {
            return this;
        }
        Map<String, Snapshot.Entry> changed = new HashMap<>(buckets.get(i));
        changed.remove(node);
        return new NodeEntries(replaced(i, changed), size - 1);
    }

    /** Every node's entry, in no particular order. */
    void forEach(BiConsumer<String, Snapshot.Entry> action) {
        buckets.forEach(b -> b.forEach(action));
    }

    private List<Map<String, Snapshot.Entry>> replaced(int i, Map<String, Snapshot.Entry> bucket) {
        List<Map<String, Snapshot.Entry>> out = new ArrayList<>(buckets);
        out.set(i, bucket);
        return out;
    }

    private static int bucket(String node) {
        int h = node.hashCode();
        return (h ^ (h >>> 16)) & (BUCKETS - 1);
    }
}
