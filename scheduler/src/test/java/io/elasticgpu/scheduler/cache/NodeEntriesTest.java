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
        return entry(name, cards, 0);
    }

    private static Snapshot.Entry entry(String name, int cards, int slot) {
        return new Snapshot.Entry(
                NodeState.empty(
                        NodeConversion.convert(node(name, cards, 16_384, 0)).orElseThrow()),
                slot,
                ++versions);
    }

    @Test
    void eachNodeIsFoundByItsSlotUntilItIsGoneAndAnOlderTableKeepsIt() {
        Snapshot.Entry a = entry("a", 1, 0);
        Snapshot.Entry b = entry("b", 2, 70);
        Snapshot.Entry b2 = entry("b", 4, 70);
        NodeEntries first = NodeEntries.EMPTY.with("a", a).with("b", b);
        NodeEntries second = first.with("b", b2).without("a");

        assertThat(first.slots())
                .as("slot 70 is in the second run of %d", NodeEntries.RUN)
                .isEqualTo(2 * NodeEntries.RUN);
        assertThat(first.atSlot(0)).isSameAs(a);
        assertThat(first.atSlot(70)).isSameAs(b);
        assertThat(first.atSlot(1)).isNull();
        assertThat(first.atSlot(10_000)).as("past the last run").isNull();
        assertThat(second.atSlot(0)).as("a is gone").isNull();
        assertThat(second.atSlot(70)).isSameAs(b2);
        assertThat(first.atSlot(70)).as("the older table is unchanged").isSameAs(b);
        assertThat(NodeEntries.EMPTY.slots()).isZero();
        assertThat(first.with("b", b2).members())
                .as("a new state in the same slot: the same nodes in the same slots")
                .isEqualTo(first.members());
        assertThat(second.members()).as("a gone").isNotEqualTo(first.members());
        assertThat(first.members())
                .as("b came")
                .isNotEqualTo(NodeEntries.EMPTY.with("a", a).members());
    }

    @Test
    void aChangeMakesANewTableAndLeavesTheOldOneAsItWas() {
        Snapshot.Entry two = entry("n1", 2);
        Snapshot.Entry four = entry("n1", 4);
        NodeEntries first = NodeEntries.EMPTY.with("n1", two);
        NodeEntries second = first.with("n1", four).with("n2", entry("n2", 1, 1));
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
