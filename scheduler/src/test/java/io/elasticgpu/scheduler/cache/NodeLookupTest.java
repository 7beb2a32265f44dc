package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The same names are answered from the slots the last request found them in, only while no node has come or gone:
 * each answer must be what looking every name up gives.
 */
class NodeLookupTest {

    private final ClusterCache cache = new ClusterCache(p -> true, 1);
    private final NodeLookup lookup = new NodeLookup();

    /** What a lookup of each name by itself gives. */
    private static List<Snapshot.Entry> byName(Snapshot snapshot, List<String> names) {
        List<Snapshot.Entry> out = new ArrayList<>();
        names.forEach(n -> out.add(snapshot.entry(n)));
        return out;
    }

    private void check(List<String> names) {
        Snapshot snapshot = cache.snapshot();
        assertThat(lookup.entries(snapshot, names)).containsExactlyElementsOf(byName(snapshot, names));
    }

    @Test
    void repeatedNamesAreAnsweredAsTheirLookupWouldWhileNodesChangeComeAndGo() {
        cache.upsertNode(node("a", 1, 16_384, 0));
        cache.upsertNode(node("b", 2, 16_384, 0));
        List<String> names = new ArrayList<>(List.of("a", "b", "c", "cpu-only"));
        for (int i = names.size(); i < NodeLookup.REMEMBERED; i++) {
            names.add("cpu-" + i); // long enough to be remembered
        }
        check(names);
        check(List.of("b")); // a short list, not remembered in its place
        check(new ArrayList<>(names)); // equal names in another list: answered from the memory
        cache.upsertNode(node("b", 4, 16_384, 0)); // a new state of b, in the same slot
        check(names);
        cache.deleteNode("a");
        cache.upsertNode(node("c", 1, 16_384, 0)); // takes the slot a left
        assertThat(cache.snapshot().entry("c").slot()).isZero();
        check(names);
        cache.upsertNode(node("a", 1, 16_384, 0));
        check(names);
    }
}
