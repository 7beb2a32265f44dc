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
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The snapshots ClusterCache hands out, and what its assumptions do to them. */
class SnapshotTest {

    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
    private final Pod slice =
            pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192", "cpu", "2")));
    private final PodGrant onCard1 =
            new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(1, "GPU-n1-1", 0, 8192))));
    private final PodHolding bind = PodHolding.of("n1", new PodResources.Totals(2000, 0), onCard1);

    @Test
    void aSnapshotDoesNotChangeWhenTheCacheChangesAfterItWasTaken() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertNode(node("n2", 1, 16_384, 0));
        Snapshot before = cache.snapshot();

        cache.hold("uid-a", bind, new Hold(onCard1, 100));
        Pod garbled = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu-memory", "8192")));
        cache.upsertPod(new PodBuilder(bound(garbled, "n1", null))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/allocation", "{not json")
                .endMetadata()
                .build());
        cache.upsertClaim(claim("ns", "c", "uid-c", "4Gi"));
        cache.upsertNode(node("n1", 8, 81_920, 4));
        cache.deleteNode("n2");
        Snapshot after = cache.snapshot();

        assertThat(before.state("n1").cardCount()).isEqualTo(2);
        assertThat(before.state("n1").usedMemory(1)).isZero();
        assertThat(before.node("n2")).isPresent();
        assertThat(before.states()).containsOnlyKeys("n1", "n2");
        assertThat(before.limits()).isEqualTo(new Snapshot.Limits(16_384, 2));
        assertThat(before.held("uid-a")).isEmpty();
        assertThat(before.unknownHolder("n1")).isEmpty();
        assertThat(before.claim("ns", "c")).isEmpty();
        assertThat(before.workloadPodCount()).isZero();

        assertThat(after.state("n1").cardCount()).isEqualTo(8);
        assertThat(after.state("n1").usedMemory(1))
                .as("the hold, counted on the rebuilt node")
                .isEqualTo(8192);
        assertThat(after.node("n2")).isEmpty();
        assertThat(after.limits()).isEqualTo(new Snapshot.Limits(81_920, 8));
        assertThat(after.held("uid-a")).isPresent();
        assertThat(after.unknownHolder("n1")).contains("ns/b");
        assertThat(after.claim("ns", "c")).isPresent();
        assertThat(after.workloadPodCount()).as("the pod and the claim: 1 + 1").isEqualTo(2);
        assertThat(after.unaccounted()).isEqualTo(1);
    }

    @Test
    void aSnapshotTakenWhileNothingChangedSharesItsNodeStatesWithTheLastOne() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        Snapshot first = cache.snapshot();

        assertThat(cache.snapshot().entry("n1")).isSameAs(first.entry("n1"));
    }

    @Test
    void aBindIsCountedFromItsAssumptionThroughItsPodSeenBoundAndForgettingItThenChangesNothing() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(slice);
        cache.assume("uid-a", bind);
        assertThat(cache.snapshot().state("n1").usedMemory(1)).as("assumed").isEqualTo(8192);

        cache.upsertPod(bound(slice, "n1", onCard1));
        assertThat(cache.snapshot().state("n1").usedMemory(1))
                .as("bound: counted once, as observed")
                .isEqualTo(8192);
        assertThat(cache.boundNode("uid-a")).contains("n1");

        cache.forget("uid-a");
        assertThat(cache.snapshot().state("n1").usedMemory(1))
                .as("the observed allocation remains")
                .isEqualTo(8192);
    }

    @Test
    void aBindThatFailedIsForgottenAndFreesItsCardsAndTellsOfTheNode() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        List<String> freed = new java.util.ArrayList<>();
        cache.onFreed(freed::add);
        cache.assume("uid-a", bind);

        cache.forget("uid-a");
        assertThat(cache.snapshot().state("n1").usedMemory(1)).isZero();
        assertThat(freed).containsExactly("n1");
    }

    @Test
    void aHoldIsCountedUntilReleasedAndALapsedOneUntilItsDeadlineHasPassed() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.hold("uid-a", bind, new Hold(onCard1, 100));
        // 64 cores allocatable less the hold's 2: 62000 m; card 1: 8192 MiB
        assertThat(cache.snapshot().state("n1").freeCpu()).isEqualTo(62_000);
        cache.release("uid-a");
        assertThat(cache.snapshot().state("n1").freeCpu()).isEqualTo(64_000);
        assertThat(cache.snapshot().held("uid-a")).isEmpty();

        cache.hold("uid-a", bind, new Hold(onCard1, 100));
        cache.hold("uid-b", PodHolding.of("n1", new PodResources.Totals(1000, 0), null), new Hold(null, 200));
        cache.expireHolds(150);
        // uid-a lapsed (100 < 150), uid-b not (200 >= 150): 64000 - 1000 = 63000 m free, card 1 free
        assertThat(cache.snapshot().state("n1").freeCpu()).isEqualTo(63_000);
        assertThat(cache.snapshot().state("n1").usedMemory(1)).isZero();
        assertThat(cache.snapshot().held("uid-b")).isPresent();
    }

    @Test
    void aBindAfterAHoldReplacesItAndIsCountedOnce() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.hold("uid-a", bind, new Hold(onCard1, 100));
        cache.assume("uid-a", bind);

        assertThat(cache.snapshot().held("uid-a")).isEmpty();
        assertThat(cache.snapshot().state("n1").usedMemory(1)).isEqualTo(8192);
        cache.expireHolds(1_000);
        assertThat(cache.snapshot().state("n1").usedMemory(1))
                .as("an assumption does not lapse")
                .isEqualTo(8192);
    }

    @Test
    void anAllocatedClaimTakesTheCardsOfItsPodsHoldAndTheHoldKeepsThePodsCpu() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.hold("uid-d", bind, new Hold(onCard1, 100));

        cache.upsertClaim(allocated(claim("ns", "c", "uid-c", "4Gi"), "n1", 1, 4096, "uid-d"));
        // card 1: the hold's 8192 MiB gone to the claim's 4096; CPU: the hold's 2000 m still held
        assertThat(cache.snapshot().state("n1").usedMemory(1)).isEqualTo(4096);
        assertThat(cache.snapshot().state("n1").freeCpu()).isEqualTo(62_000);
    }
}
