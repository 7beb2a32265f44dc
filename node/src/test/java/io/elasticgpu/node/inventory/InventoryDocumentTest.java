package io.elasticgpu.node.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.Mig;
import io.elasticgpu.node.discovery.MigDevice;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthPolicy;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class InventoryDocumentTest {

    private static final String H100 = "NVIDIA H100 80GB HBM3";

    private final MigDevice threeG = new MigDevice("MIG-a", "3g.40gb", 1, 0, 4, 4, 3, 3, 40192);
    private final Hardware hardware = new Hardware(
            "570.86.15",
            List.of(
                    new Gpu(0, "GPU-0", H100, 81559, "00000000:07:00.0", 0, 0, false),
                    new Gpu(1, "GPU-1", H100, 81559, "00000000:0F:00.0", 1, 0, new Mig(true, true, List.of(threeG))),
                    new Gpu(2, "GPU-2", H100, 81559, "00000000:47:00.0", 2, 0, new Mig(false, true, List.of()))),
            Topology.uniform(3, Link.UNKNOWN));

    @Test
    void aCardInMigModeIsPublishedUnhealthyWithItsMigDevicesAndWhy() {
        CardHealth health = CardHealth.of(hardware.gpus(), HealthPolicy.DEFAULT, InstantSource.system());
        NodeInventory inventory = NodeInventory.fromJson(
                InventoryDocument.inventory(hardware, health).toJson());

        NodeInventory.Card whole = inventory.cards().get(0);
        assertThat(whole.healthy()).isTrue();
        assertThat(whole.reason()).isNull();
        assertThat(whole.mig()).as("MIG off and staying so: nothing said").isNull();

        NodeInventory.Card mig = inventory.cards().get(1);
        assertThat(mig.healthy()).isFalse();
        assertThat(mig.reason()).isEqualTo("MIG mode is on (MIG devices 3g.40gb); it is not served whole or in shares");
        assertThat(mig.mig())
                .isEqualTo(new NodeInventory.Mig(
                        true, true, List.of(new NodeInventory.MigDevice("MIG-a", "3g.40gb", 1, 0, 4, 4, 3, 40192))));

        NodeInventory.Card pending = inventory.cards().get(2);
        assertThat(pending.healthy()).isFalse();
        assertThat(pending.mig()).isEqualTo(new NodeInventory.Mig(false, true, List.of()));
        assertThat(pending.reason()).contains("becomes on at the card's next reset");
    }

    @Test
    void aWholeCardsInventoryReadsAsBefore() {
        CardHealth health = CardHealth.of(hardware.gpus().subList(0, 1), HealthPolicy.DEFAULT, InstantSource.system());
        Hardware one = new Hardware("570.86.15", hardware.gpus().subList(0, 1), Topology.uniform(1, Link.UNKNOWN));

        assertThat(InventoryDocument.inventory(one, health).toJson())
                .isEqualTo("{\"cards\":[{\"index\":0,\"uuid\":\"GPU-0\",\"model\":\"" + H100
                        + "\",\"memoryMiB\":81559,\"healthy\":true,\"numa\":0}],\"links\":[]}");
    }
}
