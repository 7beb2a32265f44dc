package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.snapshot.NodeState;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodesTest {

    /** What each id counts, as the cache's parts would say. */
    private final Map<String, PodHolding> counts = new HashMap<>();

    private final List<String> freed = new ArrayList<>();
    private final Nodes nodes = new Nodes(counts::get, freed::add);

    private static PodHolding memory(String node, int card, long mib) {
        return PodHolding.of(
                node,
                new PodResources.Totals(1000, 0),
                new PodGrant(node, Map.of("main", List.of(new PodGrant.Share(card, "g", 0, mib)))));
    }

    private NodeState n1() {
        return nodes.entries().get("n1").state();
    }

    @Test
    void whatAnIdCountsIsReplacedAtEachRecountAndLeavingTellsOfTheNode() {
        nodes.upsert(node("n1", 2, 16_384, 0));
        freed.clear();
        counts.put("uid-a", memory("n1", 1, 8192));
        nodes.recount("uid-a");
        // 64 cores allocatable, 1 held: 63000 m free; card 1: 8192 of 16384 MiB held
        assertThat(n1().freeCpu()).isEqualTo(63_000);
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        assertThat(freed).as("an arrival frees nothing").isEmpty();

        counts.put("uid-a", memory("n1", 1, 4096));
        nodes.recount("uid-a");
        assertThat(n1().usedMemory(1))
                .as("replaced, not added: 4096, not 8192 + 4096")
                .isEqualTo(4096);
        assertThat(freed).as("the same node still").isEmpty();

        counts.remove("uid-a");
        nodes.recount("uid-a");
        assertThat(n1().usedMemory(1)).isZero();
        assertThat(freed).containsExactly("n1");
    }

    @ParameterizedTest(name = "{0} MiB held, {1} MiB seen next on a 16384 MiB card: waits {2}")
    @CsvSource({
        // 12000 + 4000 = 16000 <= 16384: both counted
        "12000, 4000, false",
        // 12000 + 4384 = 16384: exactly full, both counted
        "12000, 4384, false",
        // 12000 + 10000 = 22000 > 16384: the second waits for the first to leave
        "12000, 10000, true",
    })
    void aPodThatDoesNotFitItsCardYetWaitsUntilSomethingLeavesTheNode(long first, long second, boolean waits) {
        nodes.upsert(node("n1", 1, 16_384, 0));
        counts.put("old", memory("n1", 0, first));
        counts.put("new", memory("n1", 0, second));
        nodes.recount("old");
        nodes.recount("new");
        assertThat(nodes.waiting()).isEqualTo(waits ? 1 : 0);
        assertThat(n1().usedMemory(0)).isEqualTo(waits ? first : first + second);

        counts.remove("old");
        nodes.recount("old");
        assertThat(nodes.waiting()).isZero();
        assertThat(n1().usedMemory(0))
                .as("the second counted once the first left")
                .isEqualTo(second);
    }

    @Test
    void aHeartbeatChangesNothingAndAnInventoryChangeRebuildsWithWhatIsCountedThere() {
        nodes.upsert(node("n1", 2, 16_384, 0));
        counts.put("uid-a", memory("n1", 1, 8192));
        nodes.recount("uid-a");
        NodeEntries before = nodes.entries();
        freed.clear();

        nodes.upsert(new NodeBuilder(node("n1", 2, 16_384, 0))
                .editStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build());
        assertThat(nodes.entries()).as("nothing read changed: the same table").isSameAs(before);

        nodes.upsert(node("n1", 2, 40_960, 0));
        assertThat(n1().card(1).memoryMib()).isEqualTo(40_960);
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        assertThat(freed).as("a changed node may have room").containsExactly("n1");
        assertThat(before.get("n1").state().card(1).memoryMib())
                .as("the table taken before")
                .isEqualTo(16_384);
    }

    @Test
    void aNodeWithoutAReadableInventoryOffersNoCardsButItsPodsCountAgainOnceItHasOne() {
        nodes.upsert(node("n1", 2, 16_384, 0));
        counts.put("uid-a", memory("n1", 1, 8192));
        nodes.recount("uid-a");

        nodes.upsert(new NodeBuilder(node("n1", 2, 16_384, 0))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/inventory", "{\"cards\": [{\"index\": \"one\"}]}")
                .endMetadata()
                .build());
        assertThat(nodes.entries().get("n1")).isNull();
        assertThat(nodes.node("n1")).isNull();

        nodes.upsert(node("n1", 2, 16_384, 0));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
    }

    @ParameterizedTest(name = "nodes of {0}: largest card {1} MiB, most cards {2}; without the last {3} MiB, {4}")
    @CsvSource({
        // one node: its cards; gone, nothing is left
        "2x16384, 16384, 2, 0, 0",
        // the largest card of any node and the most cards of any node, not of the same node: max(16384, 40960,
        // 81920) = 81920 and max(2, 8, 4) = 8; without the 4x81920 node, max(16384, 40960) = 40960 and 8
        "2x16384 8x40960 4x81920, 81920, 8, 40960, 8",
        // without the 8x40960 node: 81920 and max(2, 4) = 4
        "2x16384 4x81920 8x40960, 81920, 8, 81920, 4",
    })
    void theLimitsAreTheLargestCardAndTheMostCardsOfAnyNode(
            String fleet, long memory, int cards, long memoryWithout, int cardsWithout) {
        String[] shapes = fleet.split(" ");
        for (int i = 0; i < shapes.length; i++) {
            String[] parts = shapes[i].split("x");
            nodes.upsert(node("n" + i, Integer.parseInt(parts[0]), Long.parseLong(parts[1]), 0));
        }
        assertThat(nodes.limits()).isEqualTo(new Snapshot.Limits(memory, cards));

        nodes.delete("n" + (shapes.length - 1));
        assertThat(nodes.limits()).isEqualTo(new Snapshot.Limits(memoryWithout, cardsWithout));
    }

    @Test
    void aPodBoundBeforeItsNodeHasAnInventoryCountsOnceItHasOne() {
        counts.put("uid-a", memory("n1", 1, 8192));
        nodes.recount("uid-a");
        assertThat(nodes.entries().get("n1")).isNull();

        nodes.upsert(node("n1", 2, 16_384, 0));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        assertThat(nodes.dra("n1")).isFalse();
        assertThat(nodes.dra("n2")).as("unknown").isFalse();
    }
}
