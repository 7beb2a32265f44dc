package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.allocated;
import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.claim;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.snapshot.NodeState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterCacheTest {

    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final Pod slice =
            pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192", "cpu", "2")));
    private final PodGrant onCard1 =
            new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(1, "GPU-n1-1", 0, 8192))));

    private NodeState n1() {
        return cache.snapshot().state("n1");
    }

    @Test
    void aBoundPodHoldsItsAnnotatedCardsAndCpu() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(slice, "n1", onCard1));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        assertThat(n1().usedMemory(0)).isZero();
        assertThat(n1().freeCpu()).isEqualTo(62_000);
        assertThat(n1().pods()).isEqualTo(1);
    }

    @Test
    void anAllocatedDraClaimHoldsItsCardBesideThePodsWithoutCountingAsAPodAndFreesItWhenDeleted() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(slice, "n1", onCard1));
        var pending = claim("ns", "c", "uid-c", "4Gi");
        cache.upsertClaim(pending);
        assertThat(n1().usedMemory(0)).as("not allocated yet: holds nothing").isZero();
        assertThat(cache.snapshot().claim("ns", "c")).contains(pending);

        cache.upsertClaim(allocated(pending, "n1", 1, 4096, "uid-p"));
        assertThat(n1().usedMemory(1))
                .as("one ledger per card: the pod's 8192 and the claim's 4096")
                .isEqualTo(12_288);
        assertThat(n1().pods()).as("the claim's pods count themselves").isEqualTo(1);

        cache.deleteClaim(pending);
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        assertThat(cache.snapshot().claim("ns", "c")).isEmpty();
    }

    @Test
    void aClaimConsumingAllTheMemoryACardOffersHoldsTheCardAlone() {
        ClusterCache blocks = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1000);
        blocks.upsertNode(node("n1", 2, 16_384, 0));
        // what a claim asking no memory consumes: the card's memory rounded down to the block (16000 of 16384)
        blocks.upsertClaim(allocated(claim("ns", "c", "uid-c", "16000Mi"), "n1", 0, 16_000, "uid-p"));
        blocks.upsertClaim(allocated(claim("ns", "d", "uid-d", "8000Mi"), "n1", 1, 8_000, "uid-q"));
        assertThat(blocks.snapshot().state("n1").usedMilli(0))
                .as("the card alone")
                .isEqualTo(1000);
        assertThat(blocks.snapshot().state("n1").usedMilli(1))
                .as("a memory slice: no compute limit")
                .isZero();
    }

    @Test
    void aBoundGpuPodWhoseCardsAreUnknownMarksItsNodeUntilItsAllocationIsReadableOrItIsGone() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        Pod garbled = new PodBuilder(bound(slice, "n1", onCard1))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/allocation", "{not json")
                .endMetadata()
                .build();
        cache.upsertPod(garbled);
        assertThat(cache.snapshot().unknownHolder("n1")).contains("ns/a");
        assertThat(cache.snapshot().unknownHolder("n2")).isEmpty();
        cache.upsertPod(garbled);
        assertThat(cache.snapshot().unaccounted())
                .as("counted once per pod, not per update")
                .isEqualTo(1);

        cache.upsertPod(bound(slice, "n1", onCard1));
        assertThat(cache.snapshot().unknownHolder("n1"))
                .as("its allocation readable again")
                .isEmpty();
        assertThat(n1().usedMemory(1)).isEqualTo(8192);

        PodGrant elsewhere = new PodGrant("n2", onCard1.containers());
        cache.upsertPod(bound(slice, "n1", elsewhere));
        assertThat(cache.snapshot().unknownHolder("n1"))
                .as("an allocation naming another node")
                .contains("ns/a");
        cache.deletePod(slice);
        assertThat(cache.snapshot().unknownHolder("n1")).as("the pod gone").isEmpty();
    }

    @Test
    void aGarbledInventoryTakesTheNodeOutWithoutLosingItsPodsAndAFixedOneBringsItBackAsItWas() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(slice, "n1", onCard1));
        cache.upsertNode(new io.fabric8.kubernetes.api.model.NodeBuilder(node("n1", 2, 16_384, 0))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/inventory", "{\"cards\": [{\"index\": \"one\"}]}")
                .endMetadata()
                .build());
        assertThat(cache.snapshot().state("n1"))
                .as("no card is offered from an inventory nobody can read")
                .isNull();

        cache.upsertNode(node("n1", 2, 16_384, 0));
        assertThat(n1().usedMemory(1))
                .as("its pod still counted once the inventory is readable")
                .isEqualTo(8192);
        assertThat(n1().pods()).isEqualTo(1);
    }

    @Test
    void aHeartbeatChangesNothingAndAnInventoryChangeRebuildsTheNode() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(slice, "n1", onCard1));
        NodeState before = n1();
        var heartbeat = new io.fabric8.kubernetes.api.model.NodeBuilder(node("n1", 2, 16_384, 0))
                .editStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .withLastHeartbeatTime("2026-11-25T08:00:00Z")
                .endCondition()
                .endStatus()
                .build();
        cache.upsertNode(heartbeat);
        assertThat(n1()).as("the same state object: nothing rebuilt").isSameAs(before);

        cache.upsertNode(node("n1", 2, 40_960, 0));
        assertThat(n1().node().cards().getFirst().memoryMib()).isEqualTo(40_960);
        assertThat(n1().usedMemory(1))
                .as("the bound pod counted again on the rebuilt node")
                .isEqualTo(8192);
        assertThat(cache.snapshot().limits().maxCardMemoryMib()).isEqualTo(40_960);
    }

    @Test
    void deletedSucceededAndFailedPodsFreeTheirShareAtOnce() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        Pod placed = bound(slice, "n1", onCard1);
        cache.upsertPod(placed);
        cache.upsertPod(new PodBuilder(placed)
                .editStatus()
                .withPhase("Succeeded")
                .endStatus()
                .build());
        assertThat(n1().usedMemory(1)).isZero();
        assertThat(cache.podStatus("uid-a")).isEqualTo(PodPresence.GONE);
        cache.upsertPod(placed);
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        cache.deletePod(placed);
        assertThat(n1().usedMemory(1)).isZero();
        assertThat(n1().pods()).isZero();
    }

    @Test
    void freedIsReportedWhenAPodLeavesANodeOrTheNodeChangesButNotForArrivalsOrUnchangedNodes() {
        List<String> freed = new java.util.ArrayList<>();
        cache.onFreed(freed::add);
        cache.upsertNode(node("n1", 2, 16_384, 0));
        assertThat(freed).as("a new node").containsExactly("n1");
        freed.clear();
        cache.upsertNode(node("n1", 2, 16_384, 0));
        Pod placed = bound(slice, "n1", onCard1);
        cache.upsertPod(placed);
        cache.upsertPod(placed);
        assertThat(freed)
                .as("the same node again, a pod arriving, the same pod again")
                .isEmpty();
        cache.upsertPod(new PodBuilder(placed)
                .editStatus()
                .withPhase("Failed")
                .endStatus()
                .build());
        assertThat(freed).as("a pod failing").containsExactly("n1");
        cache.upsertPod(placed);
        cache.deletePod(placed);
        assertThat(freed).as("a pod deleted").containsExactly("n1", "n1");
        cache.upsertNode(node("n1", 4, 16_384, 0));
        assertThat(freed).as("the node grew").containsExactly("n1", "n1", "n1");
    }

    @Test
    void anAssumedBindCountsUntilThePodIsSeenWithItsAllocation() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(slice);
        cache.assume("uid-a", PodHolding.of("n1", PodResources.of(slice), onCard1));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        cache.upsertPod(bound(slice, "n1", onCard1));
        assertThat(n1().usedMemory(1)).as("counted once, not twice").isEqualTo(8192);
        cache.forget("uid-a");
        assertThat(n1().usedMemory(1)).as("the observed allocation remains").isEqualTo(8192);
    }

    @Test
    void aForgottenAssumptionFreesItsCards() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.assume("uid-a", PodHolding.of("n1", PodResources.of(slice), onCard1));
        cache.forget("uid-a");
        assertThat(n1().usedMemory(1)).isZero();
    }

    @Test
    void aHoldCountsUntilItLapsesIsReleasedOrTheBoundPodIsSeen() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        PodHolding c = PodHolding.of("n1", new PodResources.Totals(2000, 0), onCard1);
        cache.hold("uid-a", c, new Hold(onCard1, 100));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        cache.expireHolds(100);
        assertThat(n1().usedMemory(1)).as("not lapsed at its deadline").isEqualTo(8192);
        cache.expireHolds(101);
        assertThat(n1().usedMemory(1)).isZero();
        assertThat(cache.snapshot().held("uid-a")).isEmpty();

        cache.hold("uid-a", c, new Hold(onCard1, 100));
        cache.release("uid-a");
        assertThat(n1().usedMemory(1)).isZero();

        cache.hold("uid-a", c, new Hold(onCard1, 100));
        cache.upsertPod(bound(slice, "n1", onCard1));
        cache.expireHolds(1_000);
        assertThat(n1().usedMemory(1))
                .as("bound: counted as observed, whatever the hold")
                .isEqualTo(8192);
        assertThat(cache.snapshot().held("uid-a")).isEmpty();
    }

    @Test
    void theWorkloadOfPodsWithoutGpusIsThoseOnGpuNodesAndThosePendingForTheGpuPodsScheduler() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(new PodBuilder(slice)
                .editSpec()
                .withSchedulerName("gpu-scheduler")
                .endSpec()
                .build());
        Pod onGpuNode = bound(pod("ns", "w1", "uid-w1", container("main", Map.of("cpu", "1"))), "n1", null);
        Pod onCpuNode = bound(pod("ns", "w2", "uid-w2", container("main", Map.of("cpu", "2"))), "cpu-node", null);
        Pod pendingHere = new PodBuilder(pod("ns", "w3", "uid-w3", container("main", Map.of("cpu", "3"))))
                .editSpec()
                .withSchedulerName("gpu-scheduler")
                .endSpec()
                .build();
        Pod pendingElsewhere = pod("ns", "w4", "uid-w4", container("main", Map.of("cpu", "4")));
        List.of(onGpuNode, onCpuNode, pendingHere, pendingElsewhere).forEach(cache::upsertPod);

        assertThat(cache.workload().hostPods()).extracting(r -> r.cpuMilli()).containsExactlyInAnyOrder(1000L, 3000L);
        cache.deletePod(onGpuNode);
        assertThat(cache.workload().hostPods()).extracting(r -> r.cpuMilli()).containsExactly(3000L);
    }

    @Test
    void podsBoundBeforeTheirNodeHasAnInventoryCountOnceItHasOne() {
        cache.upsertPod(bound(slice, "n1", onCard1));
        assertThat(cache.snapshot().state("n1")).isNull();
        cache.upsertNode(node("n1", 2, 16_384, 0));
        assertThat(n1().usedMemory(1)).isEqualTo(8192);
        cache.upsertNode(node("n1", 2, 16_384, 0));
        assertThat(n1().usedMemory(1))
                .as("a node update rebuilds, it does not add again")
                .isEqualTo(8192);
    }

    @Test
    void aGpuPodBoundWithoutAllocationIsCountedAsUnaccounted() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(slice, "n1", null));
        assertThat(cache.snapshot().unaccounted()).isEqualTo(1);
        assertThat(n1().usedMemory(1)).isZero();
    }

    @Test
    void aPodSeenOnACardBeforeTheDeletionThatFreedItIsCountedOnceTheDeletionArrives() {
        cache.upsertNode(node("n1", 1, 16_384, 0));
        Pod old = bound(
                pod("ns", "old", "uid-old", container("main", Map.of("elasticgpu.io/gpu-memory", "12000"))),
                "n1",
                new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "g", 0, 12_000)))));
        Pod reuse = bound(
                pod("ns", "new", "uid-new", container("main", Map.of("elasticgpu.io/gpu-memory", "10000"))),
                "n1",
                new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "g", 0, 10_000)))));
        cache.upsertPod(old);
        // another replica saw old deleted and gave its card to new; this cache sees new first
        cache.upsertPod(reuse);
        assertThat(cache.snapshot().waitingToBeCounted()).isEqualTo(1);
        assertThat(n1().usedMemory(0)).isEqualTo(12_000);
        cache.deletePod(old);
        assertThat(cache.snapshot().waitingToBeCounted()).isZero();
        assertThat(n1().usedMemory(0)).isEqualTo(10_000);
    }

    @Test
    void limitsFollowTheHealthyCards() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertNode(node("n2", 8, 81_920, 4));
        assertThat(cache.snapshot().limits()).isEqualTo(new Snapshot.Limits(81_920, 8));
        cache.deleteNode("n2");
        assertThat(cache.snapshot().limits()).isEqualTo(new Snapshot.Limits(16_384, 2));
    }
}
