package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Served}: who holds a call's device ids, as kubelet's records say. */
class ServedTest {

    private static final String MEM = "elasticgpu.io/gpu-memory";
    private final ContainerKey a = new ContainerKey("ns", "a", "main");
    private final ContainerKey b = new ContainerKey("ns", "b", "main");

    @Test
    void theHolderIsFoundWhateverOrderKubeletListsTheIdsIn() {
        Served served = served(Map.of(a, Map.of(MEM, List.of("m3", "m1", "m2"))));

        assertThat(served.holderOf(MEM, List.of("m1", "m2", "m3"))).contains(a);
        assertThat(served.holderOf(MEM, List.of("m2", "m1", "m3", "m1")))
                .as("an id twice")
                .contains(a);
        assertThat(served.holderOf("other", List.of("m1", "m2", "m3")))
                .as("another resource")
                .isEmpty();
    }

    @Test
    void aContainerHoldingMoreFewerOrOtherIdsIsNotTheHolder() {
        Served served = served(Map.of(a, Map.of(MEM, List.of("m1", "m2", "m3")), b, Map.of(MEM, List.of("m4"))));

        assertThat(served.holderOf(MEM, List.of("m1", "m2"))).as("a holds more").isEmpty();
        assertThat(served.holderOf(MEM, List.of("m1", "m2", "m3", "m4")))
                .as("a holds fewer")
                .isEmpty();
        assertThat(served.holderOf(MEM, List.of("m1", "m2", "m4")))
                .as("as many, not the same")
                .isEmpty();
        assertThat(served.holderOf(MEM, List.of("m4"))).contains(b);
    }

    @Test
    void idsAnInitContainerHandedOnNameOneOfTheirHolders() {
        ContainerKey init = new ContainerKey("ns", "a", "setup");
        Served served = served(Map.of(init, Map.of(MEM, List.of("m1", "m2")), a, Map.of(MEM, List.of("m2", "m1"))));

        assertThat(served.holderOf(MEM, List.of("m1", "m2"))).get().isIn(init, a);
    }

    /** kubelet's records as read, with no call in flight. */
    private static Served served(Map<ContainerKey, Map<String, List<String>>> records) {
        return new Served(new Served.Index(records), new Answers());
    }
}
