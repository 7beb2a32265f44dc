package io.elasticgpu.controller.provisioning;

import static io.elasticgpu.controller.provisioning.TestPods.claim;
import static io.elasticgpu.controller.provisioning.TestPods.gpuClass;
import static io.elasticgpu.controller.provisioning.TestPods.pod;
import static io.elasticgpu.controller.provisioning.TestPods.slicePod;
import static io.elasticgpu.controller.provisioning.TestPods.uuid;
import static io.elasticgpu.controller.provisioning.TestPods.withClaim;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec.ReclaimPolicy;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.controller.claims.ClaimBook;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodExtendedResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DesiredTest {

    @Test
    void aSliceBecomesOneGpuShareElasticGpuBoundToItsPodAndContainer() {
        var desired = Desired.of(List.of(slicePod("infer", "1f9c2e4b-aaaa", "gpu-a8", 2, 305, 4096)));

        // 305 milli → (305 + 5) / 10 = 31 percent of the card's compute.
        assertThat(desired).containsOnlyKeys("gpu-a8-2-1f9c2e4b-main");
        assertThat(desired.get("gpu-a8-2-1f9c2e4b-main"))
                .isEqualTo(new DesiredGpu(
                        "gpu-a8-2-1f9c2e4b-main",
                        "1f9c2e4b-aaaa",
                        "gpu-a8",
                        2,
                        uuid("gpu-a8", 2),
                        DesiredGpu.Source.GPU_SHARE,
                        Map.of("elasticgpu.io/gpu-core", "31", "elasticgpu.io/gpu-memory", "4096"),
                        new DesiredGpu.PodRef("ml", "infer", "main"),
                        null,
                        Phase.Bound));
    }

    @Test
    void wholeCardsBecomeOnePhysicalElasticGpuPerCard() {
        Pod train = pod(
                "train",
                "77aa00bb-cccc",
                "gpu-a8",
                Map.of("elasticgpu.io/gpu", "2"),
                List.of(new Share(4, uuid("gpu-a8", 4), 1000, 81920), new Share(5, uuid("gpu-a8", 5), 1000, 81920)));

        var desired = Desired.of(List.of(train));

        assertThat(desired).containsOnlyKeys("gpu-a8-4-77aa00bb-main", "gpu-a8-5-77aa00bb-main");
        assertThat(desired.values()).allSatisfy(g -> {
            assertThat(g.source()).isEqualTo(DesiredGpu.Source.PHYSICAL);
            assertThat(g.capacity()).isEqualTo(Map.of("elasticgpu.io/gpu", "1"));
        });
    }

    private static ResourceClaim draClaim(
            String name, String uid, String pod, String device, Map<String, Quantity> consumed) {
        var status = new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace("ml")
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .addToResults(new DeviceRequestAllocationResultBuilder()
                        .withDriver(DraNames.DRIVER)
                        .withPool("gpu-t2")
                        .withDevice(device)
                        .withRequest("gpu")
                        .withConsumedCapacity(consumed)
                        .build())
                .endDevices()
                .endAllocation();
        if (pod != null) {
            status = status.addNewReservedFor()
                    .withResource("pods")
                    .withName(pod)
                    .withUid("uid-" + pod)
                    .endReservedFor();
        }
        return status.endStatus().build();
    }

    @Test
    void aDraClaimsCardsBecomeElasticGpusHeldByTheClaimAndItsPod() {
        Map<String, NodeInventory> inventories = Map.of(
                "gpu-t2",
                new NodeInventory(
                        List.of(
                                new NodeInventory.Card(0, uuid("gpu-t2", 0), "Tesla-T4", 15_360, true, 0),
                                new NodeInventory.Card(1, uuid("gpu-t2", 1), "Tesla-T4", 15_360, true, 0)),
                        List.of()));
        ResourceClaim slice = draClaim(
                "infer",
                "5a5a5a5a-1111",
                "dra-infer",
                "gpu-0",
                Map.of(DraNames.MEMORY, new Quantity("4Gi"), DraNames.CORES, new Quantity("25")));
        ResourceClaim whole = draClaim("train", "6b6b6b6b-2222", null, "gpu-1", null);
        ResourceClaim offTheNode = draClaim("odd", "7c7c7c7c-3333", "p", "gpu-7", null);

        var desired = Desired.of(List.of(), List.of(slice, whole, offTheNode), inventories, ClaimBook.EMPTY, List.of());

        assertThat(desired).containsOnlyKeys("gpu-t2-0-5a5a5a5a-claim-infer", "gpu-t2-1-6b6b6b6b-claim-train");
        assertThat(desired.get("gpu-t2-0-5a5a5a5a-claim-infer"))
                .isEqualTo(new DesiredGpu(
                        "gpu-t2-0-5a5a5a5a-claim-infer",
                        null,
                        "gpu-t2",
                        0,
                        uuid("gpu-t2", 0),
                        DesiredGpu.Source.GPU_SHARE,
                        Map.of("elasticgpu.io/gpu-core", "25", "elasticgpu.io/gpu-memory", "4096"),
                        new DesiredGpu.PodRef("ml", "dra-infer", "claim/infer"),
                        null,
                        Phase.Bound));
        assertThat(desired.get("gpu-t2-1-6b6b6b6b-claim-train")).satisfies(g -> {
            assertThat(g.source()).isEqualTo(DesiredGpu.Source.PHYSICAL);
            assertThat(g.capacity()).isEqualTo(Map.of("elasticgpu.io/gpu", "1"));
            assertThat(g.podRef()).as("reserved for no pod yet").isNull();
        });
    }

    /**
     * A pod asking {@code elasticgpu.io/gpu} through an ElasticGPUClaim lands on a DRA node (KEP-5004): the claim
     * kube-scheduler made for it holds the card, and its ElasticGPU names the pod's container and the ElasticGPUClaim
     * that container names, so the ElasticGPUClaim is bound as on a device plugin node.
     */
    @Test
    void theClaimMadeForAPodsExtendedResourceIsHeldByItsContainerAndTheElasticGpuClaimItNames() {
        Map<String, NodeInventory> inventories = Map.of(
                "gpu-t2",
                new NodeInventory(
                        List.of(new NodeInventory.Card(0, uuid("gpu-t2", 0), "Tesla-T4", 15_360, true, 0)), List.of()));
        ResourceClaim made = draClaim("whole-extended-resources-x7", "8d8d8d8d-4444", "whole", "gpu-0", null);
        Pod whole = withClaim(slicePod("whole", "9e9e9e9e-5555", "gpu-t2", 0, 1000, 15_360), "big");
        whole.getMetadata().getAnnotations().remove("elasticgpu.io/allocation"); // DRA: no allocation of ours
        whole.getStatus()
                .setExtendedResourceClaimStatus(new PodExtendedResourceClaimStatusBuilder()
                        .withResourceClaimName("whole-extended-resources-x7")
                        .addNewRequestMapping()
                        .withContainerName("main")
                        .withResourceName("elasticgpu.io/gpu")
                        .withRequestName("container-0-request-0")
                        .endRequestMapping()
                        .build());
        made.getStatus().getAllocation().getDevices().getResults().getFirst().setRequest("container-0-request-0");
        ClaimBook book = new ClaimBook(List.of(claim("big", "c-9", "share")), List.of());

        var desired = Desired.of(List.of(whole), List.of(made), inventories, book, List.of());

        assertThat(desired).containsOnlyKeys("gpu-t2-0-8d8d8d8d-main");
        assertThat(desired.get("gpu-t2-0-8d8d8d8d-main")).satisfies(g -> {
            assertThat(g.podRef()).isEqualTo(new DesiredGpu.PodRef("ml", "whole", "main"));
            assertThat(g.claimRef()).isEqualTo(new DesiredGpu.ClaimRef("ml", "big", "c-9"));
            assertThat(g.source()).isEqualTo(DesiredGpu.Source.PHYSICAL);
        });
    }

    /**
     * A pod using an ElasticGPUClaim of a DRA class gets a claim made from the template egpuc-<claim>: its ElasticGPU
     * names the container whose annotation names the ElasticGPUClaim, and that claim.
     */
    @Test
    void theClaimMadeFromAnElasticGpuClaimsTemplateIsHeldByTheContainerThatNamesIt() {
        Map<String, NodeInventory> inventories = Map.of(
                "gpu-t2",
                new NodeInventory(
                        List.of(new NodeInventory.Card(0, uuid("gpu-t2", 0), "Tesla-T4", 15_360, true, 0)), List.of()));
        ResourceClaim made = draClaim(
                "infer-egpuc-notebook-k2x",
                "1a1a1a1a-6666",
                "infer",
                "gpu-0",
                Map.of(DraNames.MEMORY, new Quantity("4Gi"), DraNames.CORES, new Quantity("30")));
        Pod infer = withClaim(slicePod("infer", "2b2b2b2b-7777", "gpu-t2", 0, 300, 4096), "notebook");
        infer.getMetadata().getAnnotations().remove("elasticgpu.io/allocation");
        infer.getStatus()
                .setResourceClaimStatuses(List.of(new PodResourceClaimStatusBuilder()
                        .withName("egpuc-notebook")
                        .withResourceClaimName("infer-egpuc-notebook-k2x")
                        .build()));
        ClaimBook book = new ClaimBook(List.of(claim("notebook", "c-3", "share")), List.of());

        var desired = Desired.of(List.of(infer), List.of(made), inventories, book, List.of());

        assertThat(desired).containsOnlyKeys("gpu-t2-0-1a1a1a1a-main");
        assertThat(desired.get("gpu-t2-0-1a1a1a1a-main")).satisfies(g -> {
            assertThat(g.podRef()).isEqualTo(new DesiredGpu.PodRef("ml", "infer", "main"));
            assertThat(g.claimRef()).isEqualTo(new DesiredGpu.ClaimRef("ml", "notebook", "c-3"));
            assertThat(g.capacity())
                    .isEqualTo(Map.of("elasticgpu.io/gpu-core", "30", "elasticgpu.io/gpu-memory", "4096"));
        });
    }

    static Stream<Named<Consumer<Pod>>> podsThatHoldNothing() {
        return Stream.of(
                Named.of("Succeeded", p -> p.getStatus().setPhase("Succeeded")),
                Named.of("Failed", p -> p.getStatus().setPhase("Failed")),
                Named.of(
                        "bound to another node than its allocation names",
                        p -> p.getSpec().setNodeName("gpu-t2")),
                Named.of(
                        "allocation not JSON",
                        p -> p.getMetadata().getAnnotations().put("elasticgpu.io/allocation", "{")),
                Named.of("no allocation", p -> p.getMetadata().getAnnotations().remove("elasticgpu.io/allocation")));
    }

    @ParameterizedTest
    @MethodSource("podsThatHoldNothing")
    void podsThatHoldNothingHaveNoElasticGpu(Consumer<Pod> change) {
        Pod pod = slicePod("infer", "1f9c2e4b-aaaa", "gpu-a8", 2, 300, 4096);
        change.accept(pod);

        assertThat(Desired.of(List.of(pod))).isEmpty();
    }

    /** Issue 13, defect 1: a pod being deleted lost its ElasticGPU while its containers still ran on the card. */
    @Test
    void aPodBeingDeletedKeepsItsElasticGpuUntilItStops() {
        Pod pod = slicePod("infer", "1f9c2e4b-aaaa", "gpu-a8", 2, 300, 4096);
        pod.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");

        assertThat(Desired.of(List.of(pod))).hasSize(1);
    }

    @Test
    void aContainerNamingAnExistingClaimGetsItsClaimRefAndOneNamingNoneGetsNone() {
        ClaimBook book = new ClaimBook(List.of(claim("notebook", "c-1", "share")), List.of());
        Pod named = withClaim(slicePod("a", "aaaaaaaa-1", "gpu-a8", 0, 300, 4096), "notebook");
        Pod missing = withClaim(slicePod("b", "bbbbbbbb-1", "gpu-a8", 1, 300, 4096), "nobody");

        var desired = Desired.of(List.of(named, missing), book, List.of());

        assertThat(desired.get("gpu-a8-0-aaaaaaaa-main").claimRef())
                .isEqualTo(new DesiredGpu.ClaimRef("ml", "notebook", "c-1"));
        assertThat(desired.get("gpu-a8-1-bbbbbbbb-main").claimRef()).isNull();
    }

    @Test
    void onceItsPodIsGoneAnElasticGpuOfARetainClassIsReleasedAndOneOfADeleteClassIsNotWanted() {
        ClaimBook book = new ClaimBook(
                List.of(claim("kept", "c-1", "retain"), claim("dropped", "c-2", "delete")),
                List.of(gpuClass("retain", ReclaimPolicy.Retain), gpuClass("delete", ReclaimPolicy.Delete)));
        Pod a = withClaim(slicePod("a", "aaaaaaaa-1", "gpu-a8", 0, 300, 4096), "kept");
        Pod b = withClaim(slicePod("b", "bbbbbbbb-1", "gpu-a8", 1, 300, 4096), "dropped");
        List<DesiredGpu> existing =
                List.copyOf(Desired.of(List.of(a, b), book, List.of()).values());

        var afterPodsWent = Desired.of(List.of(), book, existing);

        assertThat(afterPodsWent).containsOnlyKeys("gpu-a8-0-aaaaaaaa-main");
        assertThat(afterPodsWent.get("gpu-a8-0-aaaaaaaa-main").phase()).isEqualTo(Phase.Released);
        assertThat(afterPodsWent.get("gpu-a8-0-aaaaaaaa-main").claimRef().name())
                .isEqualTo("kept");
        // Released stays Released even after its claim is gone.
        assertThat(Desired.of(List.of(), ClaimBook.EMPTY, afterPodsWent.values()))
                .containsOnlyKeys("gpu-a8-0-aaaaaaaa-main");
    }

    @Test
    void anElasticGpuReadBackFromItsResourceEqualsTheDesiredOne() {
        ClaimBook book = new ClaimBook(List.of(claim("notebook", "c-1", "share")), List.of());
        DesiredGpu want = Desired.of(
                        List.of(withClaim(slicePod("a", "aaaaaaaa-1", "gpu-a8", 0, 300, 4096), "notebook")),
                        book,
                        List.of())
                .values()
                .iterator()
                .next();

        assertThat(DesiredGpu.from(want.toResource())).isEqualTo(want);
    }
}
