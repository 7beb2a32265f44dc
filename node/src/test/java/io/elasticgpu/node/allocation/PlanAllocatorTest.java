package io.elasticgpu.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanAllocatorTest {

    private static final String MEM = "elasticgpu.io/gpu-memory";

    private final FakeNode node = new FakeNode(2, 16_384);
    private final PlanAllocator allocator = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN));

    @Test
    void kubeletsRecordsAreReadOnTheFirstCallWhateverTheClockSaysAndReusedForTenSeconds() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(0);
        PlanAllocator timed = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN), nanos::get);
        node.pods.add(node.slicePod("a", 1, MEM, 4096, 1));
        node.pods.add(node.slicePod("b", 2, MEM, 2048, 0));

        timed.allocate(MEM, node.memoryIds(1, 4096));
        assertThat(node.lists)
                .as("the first call reads kubelet's records, even at nanoTime 0")
                .isEqualTo(1);
        nanos.addAndGet(PlanAllocator.REUSE_RECORDS.toNanos());
        timed.allocate(MEM, node.memoryIds(0, 2048));
        assertThat(node.lists).as("reused within REUSE_RECORDS").isEqualTo(1);
        node.pods.add(node.slicePod("c", 3, MEM, 1024, 0));
        nanos.incrementAndGet();
        timed.allocate(MEM, node.memoryIds(0, 1024));
        assertThat(node.lists).as("read again once they are older").isEqualTo(2);
    }

    @Test
    void getPreferredAllocationGoesByTheRecordsAllocateReusesAndDoesNotReadThemAgain() {
        node.pods.add(node.slicePod("a", 1, MEM, 4096, 1));
        node.pods.add(node.slicePod("b", 2, MEM, 2048, 0));
        List<String> available = new java.util.ArrayList<>(node.memoryIds(0, 8192));
        available.addAll(node.memoryIds(1, 8192));

        List<String> forA = allocator.preferred(MEM, available, List.of(), 4096);
        assertThat(node.cardsOf(forA)).as("a's plan: card 1").containsExactly(1);
        allocator.allocate(MEM, forA);
        node.record(new ContainerKey("default", "a", "main"), MEM, forA);
        List<String> forB = allocator.preferred(MEM, available, List.of(), 2048);
        assertThat(node.cardsOf(forB)).as("b's plan: card 0").containsExactly(0);
        ContainerGrant b = allocator.allocate(MEM, forB);

        assertThat(b.container().pod()).isEqualTo("b");
        assertThat(node.lists)
                .as("read once by the first call; each answer since was for a known container")
                .isEqualTo(1);
    }

    @Test
    void theLastWaitingPodWhosePlanAGuessTookGetsThePlanOfThePodKubeletReallyAdmitted() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(0);
        PlanAllocator timed = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN), nanos::get);
        node.pods.add(node.slicePod("old", 10, MEM, 8192, 0));
        node.pods.add(node.slicePod("young", 20, MEM, 8192, 1));
        List<String> first = node.memoryIds(0, 8192);
        assertThat(timed.allocate(MEM, first).container().pod()).as("the guess").isEqualTo("old");
        node.record(new ContainerKey("default", "young", "main"), MEM, first); // kubelet was admitting young

        nanos.addAndGet(PlanAllocator.REUSE_RECORDS.toNanos() + 1); // the next call reads kubelet's records
        ContainerGrant second = timed.allocate(MEM, node.memoryIds(1, 8192));

        assertThat(second.container().pod()).isEqualTo("old");
        assertThat(second.shares().getFirst().card())
                .as("young took old's plan (card 0), so old gets young's (card 1)")
                .isEqualTo(1);
        assertThat(second.note()).isEqualTo("took the cards planned for default/young/main");
    }

    @Test
    void aContainerGetsTheCardTheExtenderPlannedForIt() {
        node.pods.add(node.slicePod("a", 1, MEM, 4096, 1));
        List<String> ids = node.memoryIds(0, 4096); // kubelet's ids may name another card: the plan decides

        ContainerGrant g = allocator.allocate(MEM, ids);

        assertThat(g.container()).isEqualTo(new ContainerKey("default", "a", "main"));
        assertThat(g.shares()).singleElement().satisfies(s -> {
            assertThat(s.card()).isEqualTo(1);
            assertThat(s.memoryMib()).isEqualTo(4096);
        });
        assertThat(g.note()).isEmpty();
    }

    @Test
    void ofTwoPodsWithTheSameAskTheOlderIsTakenAndKubeletsRecordCorrectsIt() {
        node.pods.add(node.slicePod("young", 20, MEM, 8192, 1));
        node.pods.add(node.slicePod("old", 10, MEM, 8192, 0));
        List<String> ids = node.memoryIds(0, 8192);

        ContainerGrant first = allocator.allocate(MEM, ids);
        assertThat(first.container().pod()).isEqualTo("old");
        assertThat(first.note()).isEqualTo("oldest of 2 waiting with the same ask");

        // kubelet was in fact admitting "young": its record says so; the next call, for "old", gets the plan left
        node.record(new ContainerKey("default", "young", "main"), MEM, ids);
        List<String> next = node.memoryIds(1, 8192);
        ContainerGrant second = allocator.allocate(MEM, next);
        node.record(new ContainerKey("default", "old", "main"), MEM, next);

        assertThat(second.shares().getFirst().card())
                .as("card 0 went to young; young's card 1 is what is left")
                .isEqualTo(1);
        Map<ContainerKey, ContainerGrant> truth = allocator.reconcile();
        assertThat(truth.get(new ContainerKey("default", "young", "main"))
                        .shares()
                        .getFirst()
                        .card())
                .isZero();
        assertThat(truth.get(new ContainerKey("default", "young", "main")).note())
                .isEqualTo("kubelet gave these cards to this container, not to default/old/main");
        assertThat(truth.get(new ContainerKey("default", "old", "main"))
                        .shares()
                        .getFirst()
                        .card())
                .isEqualTo(1);
    }

    @Test
    void aShareMovedToTheCardKubeletGaveKeepsTheTflopsItWasAskedIn() {
        node.pods.add(node.tflopsPod("young", 20, MEM, 8192, 1));
        node.pods.add(node.tflopsPod("old", 10, MEM, 8192, 0));
        List<String> ids = node.memoryIds(0, 8192);
        allocator.allocate(MEM, ids); // guessed old; kubelet was admitting young
        node.record(new ContainerKey("default", "young", "main"), MEM, ids);

        Share young = allocator
                .reconcile()
                .get(new ContainerKey("default", "young", "main"))
                .shares()
                .getFirst();

        assertThat(young.card()).as("the card kubelet gave").isZero();
        assertThat(young)
                .as("its own ask, TFLOPS included, on that card")
                .isEqualTo(new Share(0, node.uuid(0), 110, 8192, 100, "bf16", 108.8));
    }

    @Test
    void wholeCardsKubeletListedAreHeldWithThePlansAskTflopsIncluded() {
        Share planned = new Share(0, node.uuid(0), 1000, 16_384, 100, "bf16", 108.8);

        List<Share> held = node.listedHolds(List.of(planned), Map.of("elasticgpu.io/gpu", List.of(node.uuid(1))));

        assertThat(held).containsExactly(new Share(1, node.uuid(1), 1000, 16_384, 100, "bf16", 108.8));
    }

    @Test
    void kubeletIsSteeredToThePlannedCardOfAPodTheWatchHasNotDeliveredYet() {
        String gpu = "elasticgpu.io/gpu";
        node.unwatched.add(node.slicePod("fresh", 1, gpu, 1, 1)); // bound a moment ago; kubelet admits it already

        List<String> preferred = allocator.preferred(gpu, List.of(node.uuid(0), node.uuid(1)), List.of(), 1);

        assertThat(preferred)
                .as("the planned card, not the first best-linked one")
                .containsExactly(node.uuid(1));
        assertThat(allocator.allocate(gpu, preferred).shares())
                .singleElement()
                .satisfies(s -> assertThat(s.card()).isEqualTo(1));
    }

    @Test
    void containersAnsweredBeforeARestartAreInTheGrantsWithTheirPodsAnnotation() {
        // The agent answered "a" and was killed before it recorded it; a new agent has answered nothing.
        node.pods.add(node.slicePod("a", 1, MEM, 4096, 1));
        node.record(new ContainerKey("default", "a", "main"), MEM, node.memoryIds(0, 4096)); // ids name no card
        node.pods.add(node.slicePod("waiting", 2, MEM, 2048, 0)); // not admitted: kubelet does not list it

        Map<ContainerKey, ContainerGrant> grants = allocator.reconcile();

        assertThat(grants).containsOnlyKeys(new ContainerKey("default", "a", "main"));
        assertThat(grants.get(new ContainerKey("default", "a", "main")).shares())
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.card())
                            .as("the card answered, its plan's, not the card kubelet's block ids happen to name")
                            .isEqualTo(1);
                    assertThat(s.memoryMib()).isEqualTo(4096);
                });
    }

    /**
     * The agent gave "a" (planned on card 0) the card planned for "b" (card 1), as plans are a pool, and was killed
     * before it recorded that. kubelet's ids of a whole card name the card: the new run records "a" on card 1 and
     * admits "b" on card 0, the card kubelet has left, instead of counting "a" on card 0 and refusing "b".
     */
    @Test
    void aWholeCardAnsweredBeforeARestartIsTheCardKubeletListsAndThePlanItTookIsLeftToTheOtherPod() {
        String gpu = "elasticgpu.io/gpu";
        node.pods.add(node.wholeCardPod("a", 1, 0));
        node.pods.add(node.wholeCardPod("b", 2, 1));
        ContainerKey a = new ContainerKey("default", "a", "main");
        node.record(a, gpu, List.of(node.uuid(1)));

        ContainerGrant recorded = allocator.reconcile().get(a);
        assertThat(recorded.shares())
                .as("what kubelet's ids say 'a' holds, not its plan")
                .singleElement()
                .satisfies(s -> {
                    assertThat(s.card()).isEqualTo(1);
                    assertThat(s.uuid()).isEqualTo(node.uuid(1));
                    assertThat(s.milli()).isEqualTo(1000);
                });
        assertThat(recorded.note()).contains("kubelet lists cards [1], the plan said [0]");

        ContainerGrant b = allocator.allocate(gpu, List.of(node.uuid(0)));
        assertThat(b.container().pod()).isEqualTo("b");
        assertThat(b.shares())
                .singleElement()
                .satisfies(s -> assertThat(s.card()).isEqualTo(0));
        assertThat(b.note()).isEqualTo("took the cards planned for default/a/main");
    }

    /**
     * After a restart the agent has no answer of its own: what kubelet lists is held, each container as decisions count
     * it (a whole card moved onto the card kubelet lists, a slice on its plan's card); a pod kubelet does not list
     * holds nothing yet.
     */
    @Test
    void whatIsHeldAfterARestartIsWhatKubeletListsCountedAsDecisionsCountIt() {
        String gpu = "elasticgpu.io/gpu";
        node.pods.add(node.wholeCardPod("whole", 1, 0));
        node.pods.add(node.slicePod("slice", 2, MEM, 4096, 3));
        node.pods.add(node.slicePod("waiting", 3, MEM, 2048, 2));
        ContainerKey whole = new ContainerKey("default", "whole", "main");
        ContainerKey slice = new ContainerKey("default", "slice", "main");
        node.record(whole, gpu, List.of(node.uuid(1)));
        node.record(slice, MEM, node.memoryIds(0, 4096)); // a slice's ids count blocks only: the plan says card 3

        Map<ContainerKey, List<Share>> held = allocator.held();

        assertThat(held).containsOnlyKeys(whole, slice);
        assertThat(held.get(whole)).extracting(Share::card).containsExactly(1);
        assertThat(held.get(slice)).singleElement().satisfies(s -> {
            assertThat(s.card()).isEqualTo(3);
            assertThat(s.memoryMib()).isEqualTo(4096);
        });
    }

    @Test
    void aPlanThatWouldOverCommitACardIsRefused() {
        node.pods.add(node.slicePod("holder", 1, MEM, 12_288, 0));
        node.record(new ContainerKey("default", "holder", "main"), MEM, node.memoryIds(0, 12_288));
        node.pods.add(node.slicePod("late", 2, MEM, 8192, 0)); // a stale plan: card 0 has 4096 MiB left

        assertThatThrownBy(() -> allocator.allocate(MEM, node.memoryIds(1, 8192)))
                .isInstanceOf(AllocationException.class)
                .hasMessage("cannot give default/late/main the cards the scheduler planned: card 0 would hold 20480 of "
                        + "16384 MiB;"
                        + " nothing was given, so no card is over-committed; kubelet rejects the pod "
                        + "(UnexpectedAdmissionError) and its controller, if it has one, creates it again");
    }

    @Test
    void aCallNoWaitingPodAsksForIsRefusedWithWhatToCheck() {
        node.pods.add(node.slicePod("a", 1, MEM, 4096, 0));

        assertThatThrownBy(() -> allocator.allocate(MEM, node.memoryIds(0, 100)))
                .isInstanceOf(AllocationException.class)
                .hasMessageStartingWith(
                        "no pod bound to this node waits for 100 of elasticgpu.io/gpu-memory (kubelet asked for "
                                + "devices [GPU-0000::m");
    }

    @Test
    void theSecondResourceOfAContainerGetsTheSameCards() {
        String core = "elasticgpu.io/gpu-core";
        NodePod pod = node.slicePod("both", 1, MEM, 4096, 1);
        NodePod both = new NodePod(
                pod.uid(),
                pod.namespace(),
                pod.name(),
                1,
                pod.plan(),
                false,
                List.of(new NodePod.Container(
                        "main",
                        Map.of(MEM, 4096L, core, 2L),
                        pod.containers().getFirst().family(),
                        false)));
        node.pods.add(both);
        node.pods.add(node.slicePod("other", 0, core, 2, 0)); // older, same core ask: would win a guess

        List<String> memIds = node.memoryIds(1, 4096);
        ContainerGrant g1 = allocator.allocate(MEM, memIds);
        node.record(new ContainerKey("default", "both", "main"), MEM, memIds);
        ContainerGrant g2 = allocator.allocate(core, List.of("GPU-0001::p0", "GPU-0001::p1"));

        assertThat(g1.container().pod()).isEqualTo("both");
        assertThat(g2.container().pod())
                .as("kubelet is part-way through 'both', so the call is certainly for it")
                .isEqualTo("both");
        assertThat(g2.shares()).isEqualTo(g1.shares());
    }

    /**
     * A container that fills its card, asked for its second resource after kubelet's records were read again (as
     * after an agent restart): the records list it with its first resource and the answer for that resource holds
     * the same share; it is counted once, so the card is full, not over-committed.
     */
    @Test
    void theSecondResourceOfAContainerThatFillsItsCardCountsItsShareOnceWhenKubeletAlreadyListsIt() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(0);
        PlanAllocator timed = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN), nanos::get);
        String core = "elasticgpu.io/gpu-core";
        NodePod pod = node.slicePod("full", 1, MEM, 16_384, 1);
        node.pods.add(new NodePod(
                pod.uid(),
                pod.namespace(),
                pod.name(),
                1,
                pod.plan(),
                false,
                List.of(new NodePod.Container(
                        "main",
                        Map.of(MEM, 16_384L, core, 2L),
                        pod.containers().getFirst().family(),
                        false))));

        List<String> memIds = node.memoryIds(1, 16_384);
        ContainerGrant g1 = timed.allocate(MEM, memIds);
        node.record(new ContainerKey("default", "full", "main"), MEM, memIds);
        nanos.addAndGet(PlanAllocator.REUSE_RECORDS.toNanos() + 1); // the next call reads kubelet's records again
        ContainerGrant g2 = timed.allocate(core, List.of("GPU-0001::p0", "GPU-0001::p1"));

        assertThat(node.lists)
                .as("the second call read the records that list 'full'")
                .isEqualTo(2);
        assertThat(g2.shares()).isEqualTo(g1.shares());
    }

    @Test
    void aGuessWhoseDevicesAReadASecondLaterDoesNotListIsForgottenAndFreesThePodItNamed() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(0);
        PlanAllocator timed = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN), nanos::get);
        node.pods.add(node.slicePod("old", 10, MEM, 8192, 0));
        NodePod young = node.slicePod("young", 20, MEM, 8192, 1);
        node.pods.add(young);
        assertThat(timed.allocate(MEM, node.memoryIds(0, 8192)).container().pod())
                .as("kubelet admits young; the agent guesses old")
                .isEqualTo("old");
        node.forget(young); // young ran and was deleted before kubelet's records were read: no read lists it

        nanos.addAndGet(PlanAllocator.UNRECORDED.toNanos());
        timed.reconcile();
        assertThat(timed.truthPending())
                .as("a read UNRECORDED after the answer, not later")
                .isTrue();
        nanos.incrementAndGet();
        timed.reconcile();
        assertThat(timed.truthPending())
                .as("a read that started later does not list it: forgotten")
                .isFalse();

        ContainerGrant old = timed.allocate(MEM, node.memoryIds(0, 8192));
        assertThat(old.container().pod()).as("old no longer counts as answered").isEqualTo("old");
        assertThat(old.note()).as("its own plan, for certain").isEmpty();
    }

    @Test
    void anInitContainersAnswerIsKeptThoughNoReadOfKubeletsRecordsListsIt() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(0);
        PlanAllocator timed = new PlanAllocator(node, node, node, Topology.uniform(2, Link.UNKNOWN), nanos::get);
        PodGrant.Share share = new PodGrant.Share(0, node.uuid(0), 0, 4096);
        node.pods.add(new NodePod(
                "uid-p",
                "default",
                "p",
                1,
                java.util.Optional.of(new PodGrant("node-1", Map.of("setup", List.of(share), "main", List.of(share)))),
                false,
                List.of(
                        new NodePod.Container("setup", Map.of(MEM, 4096L), Family.ELASTIC_GPU, true),
                        new NodePod.Container("main", Map.of(MEM, 4096L), Family.ELASTIC_GPU, false))));
        ContainerKey setup = new ContainerKey("default", "p", "setup");
        assertThat(timed.allocate(MEM, node.memoryIds(0, 4096)).container()).isEqualTo(setup);
        List<String> main = node.memoryIds(0, 4096);
        timed.allocate(MEM, main);
        node.record(new ContainerKey("default", "p", "main"), MEM, main); // kubelet lists app containers only

        nanos.addAndGet(PlanAllocator.UNRECORDED.toNanos() + 1);
        assertThat(timed.reconcile())
                .as("the pod was admitted (main is listed): what setup was answered is what it got")
                .containsKey(setup);
    }
}
