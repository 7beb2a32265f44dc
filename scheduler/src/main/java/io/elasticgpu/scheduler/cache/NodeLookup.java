package io.elasticgpu.scheduler.cache;

import java.util.Arrays;
import java.util.List;

/**
 * The entries of the nodes a request names, with the names of the last request remembered by slot. kube-scheduler
 * sends pod after pod the same candidate list; while no node has come or gone since ({@link Snapshot#members}), the
 * same names are answered from their slots, which costs comparing the lists instead of a hash lookup per name (at
 * 5,000 nodes the lookups, each missing the processor's cache, were a quarter of the extender's work). Thread-safe:
 * the memory is one immutable record, replaced whole.
 */
public final class NodeLookup {

    /**
     * Lists shorter than this are looked up name by name and not remembered: they are cheap, and kube-scheduler's
     * prioritize with the one node a deciding filter passed would otherwise replace the candidate list between two
     * filters.
     */
    static final int REMEMBERED = 32;

    /** The names of a request and each one's slot (-1: no entry) in tables of {@code members}. */
    private record Memo(long members, List<String> names, int[] slots) {}

    private volatile Memo last;

    /** Each of {@code names}' entry in {@code snapshot}, in their order; null where a node has no cards. */
    public Snapshot.Entry[] entries(Snapshot snapshot, List<String> names) {
        Snapshot.Entry[] out = new Snapshot.Entry[names.size()];
        Memo m = last;
        if (m != null && m.members() == snapshot.members() && m.names().equals(names)) {
            for (int i = 0; i < out.length; i++) {
                out[i] = m.slots()[i] < 0 ? null : snapshot.atSlot(m.slots()[i]);
            }
            return out;
        }
        int[] slots = new int[out.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = snapshot.entry(names.get(i));
            slots[i] = out[i] == null ? -1 : out[i].slot();
        }
        if (out.length >= REMEMBERED) {
            last = new Memo(snapshot.members(), Arrays.asList(names.toArray(String[]::new)), slots);
        }
        return out;
    }
}
