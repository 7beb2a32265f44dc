package io.elasticgpu.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApiClaimsTest {

    private static final ClaimRef REF = new ClaimRef("team", "train", "uid-1");

    static ResourceClaim claim(String uid, DeviceRequestAllocationResult... results) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace("team")
                .withName("train")
                .withUid(uid)
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

    static DeviceRequestAllocationResult result(
            String driver, String pool, String device, Map<String, Quantity> consumed) {
        return new DeviceRequestAllocationResultBuilder()
                .withDriver(driver)
                .withPool(pool)
                .withDevice(device)
                .withRequest("gpu")
                .withConsumedCapacity(consumed)
                .withShareID(consumed.isEmpty() ? null : "7f1c")
                .build();
    }

    @Test
    void theConsumedCapacityOfOurDevicesInThisPoolIsTheShare() {
        ResourceClaim c = claim(
                "uid-1",
                result(
                        "gpu.elasticgpu.io",
                        "node-a",
                        "gpu-2",
                        Map.of("memory", new Quantity("4Gi"), "cores", new Quantity("30"))),
                result(
                        "gpu.elasticgpu.io",
                        "node-b",
                        "gpu-0",
                        Map.of("memory", new Quantity("1Gi"))), // another node's pool
                result("other.example.com", "node-a", "gpu-1", Map.of())); // another driver

        assertThat(ApiClaims.devices(REF, c, "node-a", DraCards.four()))
                // 4Gi = 4096 MiB; 30 cores = 300 milli
                .containsExactly(new ClaimDevice("gpu", "gpu-2", 2, 4096, 300, Optional.of("7f1c")));
    }

    @Test
    void aResultWithoutConsumedCapacityHoldsTheWholeCard() {
        ResourceClaim c = claim("uid-1", result("gpu.elasticgpu.io", "node-a", "gpu-1", Map.of()));

        assertThat(ApiClaims.devices(REF, c, "node-a", DraCards.four()))
                .containsExactly(new ClaimDevice("gpu", "gpu-1", 1, 81_920, 1000, Optional.empty()));
    }

    /**
     * A claim asking cores and no memory: kube-scheduler records the request policy's default as consumed, all of the
     * card's memory offered (81,920 MiB in blocks of 768: 81,408), and the device carries it, so that the share MPS
     * holds has a memory limit. One recorded with no memory at all holds the card's memory.
     */
    @Test
    void aComputeOnlyClaimHoldsTheCardsMemory() {
        long offered = io.elasticgpu.api.v1alpha1.DraNames.offeredMemoryMib(81_920, 768);
        ResourceClaim asAllocated = claim(
                "uid-1",
                result(
                        "gpu.elasticgpu.io",
                        "node-a",
                        "gpu-2",
                        Map.of("memory", new Quantity(offered + "Mi"), "cores", new Quantity("30"))));
        ResourceClaim noMemory =
                claim("uid-1", result("gpu.elasticgpu.io", "node-a", "gpu-3", Map.of("cores", new Quantity("30"))));

        assertThat(ApiClaims.devices(REF, asAllocated, "node-a", DraCards.four()))
                .containsExactly(new ClaimDevice("gpu", "gpu-2", 2, 81_408, 300, Optional.of("7f1c")));
        assertThat(ApiClaims.devices(REF, noMemory, "node-a", DraCards.four()))
                .containsExactly(new ClaimDevice("gpu", "gpu-3", 3, 81_920, 300, Optional.of("7f1c")));
    }

    @Test
    void claimsThatCannotBePreparedSayWhy() {
        var hw = DraCards.four();
        assertThatThrownBy(() -> ApiClaims.devices(REF, null, "node-a", hw))
                .hasMessage("claim team/train (uid-1): not found (deleted, or re-created with another UID)");
        assertThatThrownBy(() -> ApiClaims.devices(REF, claim("uid-2"), "node-a", hw))
                .hasMessage("claim team/train (uid-1): not found (deleted, or re-created with another UID)");
        ResourceClaim pending = new ResourceClaimBuilder()
                .withNewMetadata()
                .withUid("uid-1")
                .endMetadata()
                .build();
        assertThatThrownBy(() -> ApiClaims.devices(REF, pending, "node-a", hw))
                .hasMessage("claim team/train (uid-1): not allocated; kube-scheduler allocates it when it schedules "
                        + "the pod");
        assertThatThrownBy(() -> ApiClaims.devices(
                        REF, claim("uid-1", result("gpu.elasticgpu.io", "node-b", "gpu-0", Map.of())), "node-a", hw))
                .hasMessage("claim team/train (uid-1): its allocation names no device of driver gpu.elasticgpu.io in "
                        + "pool node-a");
        assertThatThrownBy(() -> ApiClaims.devices(
                        REF, claim("uid-1", result("gpu.elasticgpu.io", "node-a", "gpu-9", Map.of())), "node-a", hw))
                .hasMessage("claim team/train (uid-1): device gpu-9 is not a card of this node (gpu-0..gpu-3)");
    }

    @Test
    void onlyOurDeviceNamesAreCards() {
        assertThat(List.of("gpu-0", "gpu-17", "gpu-01", "gpu-", "cpu-1", "gpu-1x"))
                .extracting(io.elasticgpu.api.v1alpha1.DraNames::cardIndex)
                .containsExactly(0, 17, -1, -1, -1, -1);
    }

    /** A claim of two requests, gpu-a and gpu-b, each a card of ours on node-a. */
    private static ResourceClaim twoRequests() {
        return claim(
                "uid-1",
                new DeviceRequestAllocationResultBuilder()
                        .withDriver("gpu.elasticgpu.io")
                        .withPool("node-a")
                        .withDevice("gpu-0")
                        .withRequest("gpu-a")
                        .build(),
                new DeviceRequestAllocationResultBuilder()
                        .withDriver("gpu.elasticgpu.io")
                        .withPool("node-a")
                        .withDevice("gpu-1")
                        .withRequest("gpu-b/fast") // a subrequest: containers name gpu-b
                        .build());
    }

    /** A pod whose containers use the claim {@code train} (named {@code gpus} in the pod) as {@code uses} says. */
    private static io.fabric8.kubernetes.api.model.Pod pod(boolean fromTemplate, Map<String, List<String>> uses) {
        var pod = new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withNamespace("team")
                .withName("p")
                .withUid("uid-p")
                .endMetadata()
                .withNewSpec()
                .addNewResourceClaim()
                .withName("gpus")
                .withResourceClaimName(fromTemplate ? null : "train")
                .withResourceClaimTemplateName(fromTemplate ? "train-template" : null)
                .endResourceClaim()
                .endSpec();
        if (fromTemplate) {
            pod.withNewStatus()
                    .addNewResourceClaimStatus()
                    .withName("gpus")
                    .withResourceClaimName("train")
                    .endResourceClaimStatus()
                    .endStatus();
        }
        uses.forEach((container, requests) -> {
            var c = new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName(container)
                    .withNewResources()
                    .endResources();
            for (String r : requests) {
                c.editResources()
                        .addNewClaim()
                        .withName("gpus")
                        .withRequest(r.isEmpty() ? null : r)
                        .endClaim()
                        .endResources();
            }
            pod.editSpec().addToContainers(c.build()).endSpec();
        });
        return pod.build();
    }

    @Test
    void aContainerThatUsesTwoRequestsOfAClaimIsRefusedWithWhatToDoInstead() {
        assertThat(ApiClaims.oneRequestPerContainer(
                        REF, twoRequests(), List.of(pod(false, Map.of("main", List.of("gpu-a", "gpu-b"))))))
                .hasValue("claim team/train (uid-1): container main of pod p uses its requests gpu-a and gpu-b, each a "
                        + "card of its own with its own CDI device, and the container runtime keeps only the last "
                        + "device's NVIDIA_VISIBLE_DEVICES and limits, so the container would be told one card and "
                        + "handed 2; give each request to its own container, or ask for the cards in one request "
                        + "(count: 2)");
    }

    @Test
    void aContainerThatUsesTheWholeClaimOfTwoRequestsIsRefusedAlsoThroughATemplate() {
        assertThat(ApiClaims.oneRequestPerContainer(
                        REF, twoRequests(), List.of(pod(true, Map.of("main", List.of(""))))))
                .hasValueSatisfying(why ->
                        assertThat(why).contains("container main of pod p uses its requests gpu-a " + "and gpu-b"));
    }

    @Test
    void eachRequestInAContainerOfItsOwnOrOneRequestSharedIsFine() {
        assertThat(ApiClaims.oneRequestPerContainer(
                        REF,
                        twoRequests(),
                        List.of(pod(
                                false, Map.of("a", List.of("gpu-a"), "b", List.of("gpu-b"), "c", List.of("gpu-a"))))))
                .isEmpty();
        assertThat(ApiClaims.oneRequestPerContainer(
                        REF, twoRequests(), List.of(pod(false, Map.of("main", List.of("other-claim-request"))))))
                .isEmpty();
    }
}
