package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeInventoryTest {

    private final NodeInventory inventory = new NodeInventory(
            List.of(
                    new NodeInventory.Card(0, "GPU-a", "A100", 81_920, true, 0),
                    new NodeInventory.Card(1, "GPU-b", "A100", 81_920, false, 1)),
            List.of(new NodeInventory.Link(0, 1, "NVLINK", 12)));

    @Test
    void writesTheDocumentedJson() {
        assertThat(inventory.toJson())
                .isEqualTo("{\"cards\":[{\"index\":0,\"uuid\":\"GPU-a\",\"model\":\"A100\","
                        + "\"memoryMiB\":81920,\"healthy\":true,\"numa\":0},{\"index\":1,\"uuid\":\"GPU-b\","
                        + "\"model\":\"A100\","
                        + "\"memoryMiB\":81920,\"healthy\":false,\"numa\":1}],\"links\":[{\"a\":0,\"b\":1,"
                        + "\"kind\":\"NVLINK\",\"nvlinks\":12}]}");
    }

    @Test
    void readsWhatItWritesAndToleratesMissingLinksAndUnknownFields() {
        assertThat(NodeInventory.fromJson(inventory.toJson())).isEqualTo(inventory);
        NodeInventory noLinks = NodeInventory.fromJson("{\"cards\":[{\"index\":0,\"uuid\":\"u\",\"model\":\"T4\","
                + "\"memoryMiB\":15360,\"healthy\":true,\"numa\":-1,\"future\":1}]}");
        assertThat(noLinks.links()).isEmpty();
    }

    @Test
    void rejectsBrokenInventoriesSayingWhatIsWrong() {
        assertThatThrownBy(() -> NodeInventory.fromJson("{\"cards\":[{\"index\":1,\"uuid\":\"u\",\"model\":\"T4\"}]}"))
                .hasMessageContaining("inventory: card at position 0 has index 1; indexes must be 0..0 in order");
        assertThatThrownBy(() -> NodeInventory.fromJson("not json"))
                .hasMessageStartingWith("inventory: not valid JSON");
        assertThatThrownBy(
                        () -> new NodeInventory(inventory.cards(), List.of(new NodeInventory.Link(0, 2, "NVLINK", 1))))
                .hasMessage("inventory: link 0-2 does not join two of the 2 cards");
        assertThatThrownBy(() -> new NodeInventory(inventory.cards(), List.of(new NodeInventory.Link(0, 1, "PIX", 0))))
                .hasMessageStartingWith("inventory: link 0-1 has kind PIX; use one of");
    }

    @Test
    void labelValuesAreMadeValid() {
        assertThat(NodeLabels.value("NVIDIA A100-SXM4-80GB")).isEqualTo("NVIDIA-A100-SXM4-80GB");
        assertThat(NodeLabels.value(" (Tesla) T4 ")).isEqualTo("Tesla-T4");
        assertThat(NodeLabels.value("x".repeat(70))).hasSize(63);
    }
}
