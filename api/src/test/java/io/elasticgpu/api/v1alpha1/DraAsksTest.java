package io.elasticgpu.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.GpuAsk.Role;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one reading of ResourceClaim requests into GpuAsks: what the extender places a DRA pod by. */
class DraAsksTest {

    private static final long BLOCK = 1024;

    /** A claim named c with one exact request "gpu" of {@code className}, {@code count} cards, {@code capacity}. */
    private static ResourceClaim claim(String className, Long count, String... capacity) {
        Map<String, Quantity> asked = new LinkedHashMap<>();
        for (int i = 0; i < capacity.length; i += 2) {
            asked.put(capacity[i], new Quantity(capacity[i + 1]));
        }
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(className)
                .withCount(count)
                .withNewCapacity()
                .withRequests(asked)
                .endCapacity()
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build();
    }

    @Test
    void memoryIsRoundedUpToTheBlockAndCoresArePercentOfTheCard() {
        assertThat(DraAsks.of(claim(DraNames.DRIVER, 2L, DraNames.MEMORY, "5000Mi", DraNames.CORES, "30"), BLOCK))
                .containsExactly(GpuAsk.slice("claim/c/gpu", Role.APP, 2, 300, 5120, Family.DRA));
    }

    @Test
    void memoryAloneIsASliceWithoutComputeLimitAndNoMemoryOrAllCoresIsTheCardAlone() {
        assertThat(DraAsks.of(claim(DraNames.DRIVER, null, DraNames.MEMORY, "8Gi"), BLOCK))
                .containsExactly(GpuAsk.slice("claim/c/gpu", Role.APP, 1, 0, 8192, Family.DRA));
        assertThat(DraAsks.of(claim(DraNames.DRIVER, null, DraNames.CORES, "50"), BLOCK))
                .as("no memory asked: the request policy's default, all of it")
                .containsExactly(GpuAsk.whole("claim/c/gpu", Role.APP, 1, Family.DRA));
        assertThat(DraAsks.of(
                        claim("a100.gpu.elasticgpu.io", 1L, DraNames.MEMORY, "8Gi", DraNames.CORES, "100"), BLOCK))
                .as("a per-model class is ours too")
                .containsExactly(GpuAsk.whole("claim/c/gpu", Role.APP, 1, Family.DRA));
    }

    @Test
    void requestsOfOtherDriversAndAllocatedClaimsAskNothing() {
        assertThat(DraAsks.of(claim("gpu.nvidia.com", 1L), BLOCK)).isEmpty();
        ResourceClaim allocated = new ResourceClaimBuilder(claim(DraNames.DRIVER, 1L, DraNames.MEMORY, "8Gi"))
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .addNewResult()
                .withDriver(DraNames.DRIVER)
                .withPool("n1")
                .withDevice("gpu-0")
                .withRequest("gpu")
                .endResult()
                .endDevices()
                .endAllocation()
                .endStatus()
                .build();
        assertThat(DraAsks.of(allocated, BLOCK))
                .as("what it holds counts through DraShares")
                .isEmpty();
    }

    @Test
    void aPrioritizedListIsReadByItsFirstSubrequest() {
        ResourceClaim c = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .withRequests(new DeviceRequestBuilder()
                        .withName("gpu")
                        .addNewFirstAvailable()
                        .withName("big")
                        .withDeviceClassName(DraNames.DRIVER)
                        .withNewCapacity()
                        .addToRequests(DraNames.MEMORY, new Quantity("16Gi"))
                        .endCapacity()
                        .endFirstAvailable()
                        .addNewFirstAvailable()
                        .withName("small")
                        .withDeviceClassName(DraNames.DRIVER)
                        .withNewCapacity()
                        .addToRequests(DraNames.MEMORY, new Quantity("4Gi"))
                        .endCapacity()
                        .endFirstAvailable()
                        .build())
                .endDevices()
                .endSpec()
                .build();
        assertThat(DraAsks.of(c, BLOCK)).extracting(GpuAsk::memoryMib).containsExactly(16_384L);
    }

    @Test
    void allocationModeAllIsRefusedWithWhatToAskInstead() {
        ResourceClaim all = new ResourceClaimBuilder(claim(DraNames.DRIVER, null))
                .editSpec()
                .editDevices()
                .editFirstRequest()
                .editExactly()
                .withAllocationMode("All")
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build();
        assertThatThrownBy(() -> DraAsks.of(all, BLOCK))
                .isInstanceOf(InvalidAskException.class)
                .hasMessageContaining("allocationMode: ExactCount");
    }

    @Test
    void aPodsClaimsAreNamedOnesAndGeneratedOnesOnceKubeControllerManagerNamedThem() {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .endMetadata()
                .withNewSpec()
                .addNewResourceClaim()
                .withName("shared")
                .withResourceClaimName("team-gpu")
                .endResourceClaim()
                .addNewResourceClaim()
                .withName("own")
                .withResourceClaimTemplateName("slice")
                .endResourceClaim()
                .endSpec()
                .build();
        assertThat(DraAsks.claims(pod))
                .containsExactly(new DraAsks.PodClaim("shared", "team-gpu"), new DraAsks.PodClaim("own", null));

        Pod generated = new PodBuilder(pod)
                .withNewStatus()
                .addNewResourceClaimStatus()
                .withName("own")
                .withResourceClaimName("p-own-x7k2q")
                .endResourceClaimStatus()
                .endStatus()
                .build();
        assertThat(DraAsks.claims(generated))
                .extracting(DraAsks.PodClaim::claimName)
                .containsExactly("team-gpu", "p-own-x7k2q");
        assertThat(DraAsks.claims(new PodBuilder().withNewSpec().endSpec().build()))
                .isEqualTo(List.of());
    }
}
