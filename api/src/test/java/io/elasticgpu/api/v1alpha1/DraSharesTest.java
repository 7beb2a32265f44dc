package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one reading of a DRA allocation into our units, shared by the node agent and the views. */
class DraSharesTest {

    private static DeviceRequestAllocationResult result(
            String driver, String pool, String device, Map<String, Quantity> consumed) {
        return new DeviceRequestAllocationResultBuilder()
                .withDriver(driver)
                .withPool(pool)
                .withDevice(device)
                .withRequest("gpu")
                .withShareID(consumed == null ? null : "share-1")
                .withConsumedCapacity(consumed)
                .build();
    }

    private static ResourceClaim claim(DeviceRequestAllocationResult... results) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .withResults(results)
                .endDevices()
                .endAllocation()
                .endStatus()
                .build();
    }

    @Test
    void consumedCapacityIsReadInMibAndMilliRoundedUp() {
        ResourceClaim c = claim(result(
                DraNames.DRIVER,
                "n1",
                "gpu-2",
                Map.of(DraNames.MEMORY, new Quantity("1000.5Mi"), DraNames.CORES, new Quantity("25"))));

        assertThat(DraShares.of(c))
                .containsExactly(new DraShares.DraShare("n1", 2, "gpu-2", "gpu", false, 1001, 250, "share-1"));
    }

    @Test
    void aResultWithoutConsumedCapacityHoldsTheWholeCard() {
        assertThat(DraShares.of(claim(result(DraNames.DRIVER, "n1", "gpu-0", null))))
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.wholeCard()).isTrue();
                    assertThat(s.milli()).isEqualTo(1000);
                    assertThat(s.shareId()).isNull();
                });
    }

    @Test
    void onlyOurDriversResultsCountAndADeviceNotOfOursHasNoCard() {
        ResourceClaim c =
                claim(result("gpu.nvidia.com", "n1", "gpu-0", null), result(DraNames.DRIVER, "n1", "mig-1", null));

        assertThat(DraShares.of(c))
                .extracting(DraShares.DraShare::device, DraShares.DraShare::card)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("mig-1", -1));
    }

    @Test
    void aClaimNotAllocatedHoldsNothing() {
        ResourceClaim pending = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .build();

        assertThat(DraShares.allocated(pending)).isFalse();
        assertThat(DraShares.of(pending)).isEqualTo(List.of());
    }
}
