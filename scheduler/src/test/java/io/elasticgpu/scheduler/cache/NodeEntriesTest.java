package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.snapshot.NodeState;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NodeEntriesTest {

    private static long versions;

    private static Snapshot.Entry entry(String name, int cards) {
        return new Snapshot.Entry(
                NodeState.empty(
                        NodeConversion.convert(node(name, cards, 16_384, 0)).orElseThrow()),
                0,
                ++versions);
    }

    @Test
    void aChangeMakesANewTableAndLeavesTheOldOneAsItWas() {
        Snapshot.Entry two = entry("n1", 2);
        Snapshot.Entry four = entry("n1", 4);
        NodeEntries first = NodeEntries.EMPTY.with("n1", two);
        NodeEntries second = first.with("n1", four).with("n2", entry("n2", 1));
        NodeEntries third = second.without("n1");

        assertThat(first.get("n1")).isSameAs(two);
        assertThat(first.size()).isEqualTo(1);
        assertThat(second.get("n1")).isSameAs(four);
        assertThat(second.size()).as("n1 replaced, n2 added: 1 + 1").isEqualTo(2);
        assertThat(third.get("n1")).isNull();
        assertThat(third.size()).isEqualTo(1);
        assertThat(NodeEntries.EMPTY.size()).isZero();
    }

    @Test
    void removingANodeThatIsNotThereReturnsTheSameTable() {
        NodeEntries one = NodeEntries.EMPTY.with("n1", entry("n1", 1));

        assertThat(one.without("n2")).isSameAs(one);
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {1, 64, 65, 5_000})
    void everyNodeIsFoundWhateverBucketItFallsInto(int count) {
        Snapshot.Entry e = entry("n", 1);
        NodeEntries table = NodeEntries.EMPTY;
        for (int i = 0; i < count; i++) {
            table = table.with("gpu-%05d".formatted(i), e);
        }
        Map<String, Snapshot.Entry> seen = new HashMap<>();
        table.forEach(seen::put);

        assertThat(table.size()).isEqualTo(count);
        assertThat(seen).hasSize(count);
        assertThat(table.get("gpu-%05d".formatted(count - 1))).isSameAs(e);
        assertThat(table.get("gpu-%05d".formatted(count))).isNull();
    }
}
