package io.elasticgpu.scheduler.binding;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.policy.BinpackPolicy;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.Hold;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.PodResources;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BinderTest {

    private final InMemoryClusterApi api = new InMemoryClusterApi();
    private final AtomicLong now =
            new AtomicLong(Instant.parse("2026-11-21T10:00:00Z").toEpochMilli());

    private ClusterCache cache() {
        ClusterCache c = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
        api.feed(c);
        return c;
    }

    private Binder binder(ClusterCache cache) {
        return new Binder(
                api,
                cache,
                BinpackPolicy::new,
                PodAsks.Units.DEFAULT,
                () -> Instant.ofEpochMilli(now.get()),
                Duration.ofSeconds(60));
    }

    private Binder.Outcome bind(Binder binder, Pod pod, String node) {
        PodAsk ask = PodAsk.of(pod, PodAsks.Units.DEFAULT);
        return binder.bind(pod, ask, node);
    }

    private Pod stored(String name) {
        return api.pods().stream()
                .filter(p -> p.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @BeforeEach
    void oneNodeOfTwoCards() {
        api.addNode(node("n1", 2, 16_384, 0));
    }

    @Test
    void bindingReservesWritesTheAllocationAndBinds() {
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192")));
        api.addPod(p);
        ClusterCache cache = cache();
        Binder.Outcome outcome = bind(binder(cache), p, "n1");

        PodGrant expected = new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "GPU-n1-0", 0, 8192))));
        assertThat(outcome).isEqualTo(new Binder.Outcome.Bound(expected));
        Pod after = stored("a");
        assertThat(after.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(after.getMetadata().getAnnotations())
                .containsEntry(Annotations.ALLOCATION, expected.toJson())
                .containsEntry(Annotations.PHASE, "assumed")
                .containsEntry(Annotations.ASSUME_TIME, Long.toString(now.get() * 1_000_000L));
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-a");
        assertThat(cache.snapshot().state("n1").usedMemory(0))
                .as("assumed at once")
                .isEqualTo(8192);
        assertThat(api.calls())
                .as("read the ledger, write it, bind with the annotations")
                .isEqualTo(3);
    }

    @Test
    void anApiServerThatCannotBeReachedFailsTheBindForKubeSchedulerToRetryNotWithAnException() {
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192")));
        api.addPod(p);
        ClusterCache cache = cache();
        api.down(true);
        assertThat(bind(binder(cache), p, "n1"))
                .isEqualTo(new Binder.Outcome.Failed(
                        "node n1: reading the ledger of node n1: connection refused; kube-scheduler will retry"));
        api.down(false);
        assertThat(bind(binder(cache), p, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
    }

    @Test
    void onADraNodeAPodAskingTheExtendedResourceIsBoundAsItIsItsClaimHoldingTheCards() {
        api.addNode(new io.fabric8.kubernetes.api.model.NodeBuilder(node("d1", 2, 16_384, 0))
                .editMetadata()
                .addToLabels("elasticgpu.io/gpu.api", "dra")
                .endMetadata()
                .build());
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        api.addPod(p);
        ClusterCache cache = cache();

        assertThat(bind(binder(cache), p, "d1")).isEqualTo(new Binder.Outcome.Bound(null));
        assertThat(stored("a").getSpec().getNodeName()).isEqualTo("d1");
        assertThat(stored("a").getMetadata().getAnnotations())
                .as("no allocation of ours")
                .doesNotContainKey(Annotations.ALLOCATION);
        assertThat(api.ledger("d1")).isEmpty();
        api.feed(cache);
        assertThat(cache.snapshot().unknownHolder("d1"))
                .as("its cards are its claim's, not unknown")
                .isEmpty();
        assertThat(cache.snapshot().state("d1").usedMemory(0)
                        + cache.snapshot().state("d1").usedMemory(1))
                .isZero();
    }

    @Test
    void theNextBindOnANodeWritesOnTheLedgerVersionThisReplicaWroteWithoutReadingItAgain() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
        api.addPod(a);
        api.addPod(b);
        Binder binder = binder(cache());
        assertThat(bind(binder, a, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        int calls = api.calls();
        assertThat(bind(binder, b, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(api.calls() - calls).as("write the ledger, bind").isEqualTo(2);
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-a", "uid-b");
    }

    @Test
    void podsBoundToOneNodeAtOnceTakeTurnsAtItsLedgerSoNoWriteIsRefused() throws Exception {
        List<Pod> pods = pods(8);
        Binder binder = binder(cache());
        api.ledgerWriteLatency(Duration.ofMillis(20));
        List<Binder.Outcome> outcomes = inParallel(pods, p -> bind(binder, p, "n1"));
        assertThat(outcomes).allMatch(o -> o instanceof Binder.Outcome.Bound);
        assertThat(binder.ledgerConflicts()).as("writes refused").isZero();
        assertThat(api.calls() - api.ledgerWrites())
                .as("one read of the ledger, then a bind per pod")
                .isEqualTo(1 + 8);
        assertThat(api.ledger("n1")).hasSize(8);
    }

    @Test
    void bindsThatArriveWhileTheLedgerIsWrittenGoTogetherInTheNextWrite() throws Exception {
        List<Pod> pods = pods(8);
        Binder binder = binder(cache());
        var writeInFlight = new java.util.concurrent.CountDownLatch(1);
        api.holdLedgerWrites(writeInFlight);
        var kubeScheduler = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        var first = kubeScheduler.submit(() -> bind(binder, pods.getFirst(), "n1"));
        org.awaitility.Awaitility.await().until(() -> api.ledgerWrites() == 1);
        List<java.util.concurrent.Future<Binder.Outcome>> rest = new java.util.ArrayList<>();
        pods.subList(1, 8).forEach(p -> rest.add(kubeScheduler.submit(() -> bind(binder, p, "n1"))));
        org.awaitility.Awaitility.await().until(() -> binder.waiting("n1") == 7);
        writeInFlight.countDown();
        assertThat(first.get()).isInstanceOf(Binder.Outcome.Bound.class);
        for (var r : rest) {
            assertThat(r.get()).isInstanceOf(Binder.Outcome.Bound.class);
        }
        kubeScheduler.close();
        assertThat(api.ledgerWrites())
                .as("the first pod's, then the seven that waited, in one")
                .isEqualTo(2);
        assertThat(api.ledger("n1")).hasSize(8);
        assertThat(cardsHeld(pods))
                .as("each pod's own cards, none twice over capacity")
                .allMatch(c -> c <= 16_384);
    }

    private List<Pod> pods(int n) {
        List<Pod> pods = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod p = pod("ns", "p" + i, "uid-p" + i, container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
            api.addPod(p);
            pods.add(p);
        }
        return pods;
    }

    private static <T> List<T> inParallel(List<Pod> pods, java.util.function.Function<Pod, T> task) throws Exception {
        List<java.util.concurrent.Future<T>> futures = new java.util.ArrayList<>();
        try (var kubeScheduler = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            pods.forEach(p -> futures.add(kubeScheduler.submit(() -> task.apply(p))));
        }
        List<T> out = new java.util.ArrayList<>();
        for (var f : futures) {
            out.add(f.get());
        }
        return out;
    }

    /** MiB held on each card of n1 by the pods' recorded allocations. */
    private java.util.Collection<Long> cardsHeld(List<Pod> pods) {
        Map<Integer, Long> held = new java.util.HashMap<>();
        for (Pod p : pods) {
            PodGrant a = PodGrant.fromJson(stored(p.getMetadata().getName())
                    .getMetadata()
                    .getAnnotations()
                    .get(Annotations.ALLOCATION));
            a.containers()
                    .values()
                    .forEach(shares -> shares.forEach(s -> held.merge(s.card(), s.memoryMib(), Long::sum)));
        }
        return held.values();
    }

    @Test
    void aLedgerAnotherReplicaChangedIsReadAgainAndNothingIsLost() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
        Pod c = pod("ns", "c", "uid-c", container("main", Map.of("elasticgpu.io/gpu-memory", "4000")));
        api.addPod(a);
        api.addPod(b);
        api.addPod(c);
        Binder one = binder(cache());
        assertThat(bind(one, a, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder(cache()), b, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(one, c, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-a", "uid-b", "uid-c");
        assertThat(one.ledgerConflicts())
                .as("the other replica's write came between")
                .isEqualTo(1);
    }

    @Test
    void aBindKeepsTheCardsTheFilterHeldWhileTheLedgerStillHasThemFree() {
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192")));
        api.addPod(p);
        ClusterCache cache = cache();
        PodGrant held = new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(1, "GPU-n1-1", 0, 8192))));
        cache.hold("uid-a", PodHolding.of("n1", new PodResources.Totals(0, 0), held), new Hold(held, 0));

        assertThat(bind(binder(cache), p, "n1"))
                .as("binpack alone would take card 0")
                .isEqualTo(new Binder.Outcome.Bound(held));
        assertThat(cache.snapshot().held("uid-a"))
                .as("the bind's assumption replaces the hold")
                .isEmpty();
    }

    @Test
    void aHeldCardTheLedgerNoLongerHasFreeIsChosenAgain() {
        Pod other = pod("ns", "o", "uid-o", container("main", Map.of("elasticgpu.io/gpu-memory", "12000")));
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192")));
        api.addPod(other);
        api.addPod(p);
        ClusterCache cache = cache();
        Binder binder = binder(cache);
        assertThat(bind(binder, other, "n1")).isInstanceOf(Binder.Outcome.Bound.class); // takes card 0
        PodGrant held = new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "GPU-n1-0", 0, 8192))));
        cache.hold("uid-a", PodHolding.of("n1", new PodResources.Totals(0, 0), held), new Hold(held, 0));

        assertThat(bind(binder, p, "n1"))
                .isInstanceOfSatisfying(
                        Binder.Outcome.Bound.class,
                        bound -> assertThat(bound.allocation().cards()).containsExactly(1));
    }

    @Test
    void twoReplicasThatHaveNotSeenEachOthersBindsStillShareTheCardsThroughTheLedger() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "12000")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu-memory", "12000")));
        Pod c = pod("ns", "c", "uid-c", container("main", Map.of("elasticgpu.io/gpu-memory", "12000")));
        api.addPod(a);
        api.addPod(b);
        api.addPod(c);
        Binder one = binder(cache());
        Binder two = binder(cache());
        assertThat(bind(one, a, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(two, b, "n1"))
                .isInstanceOfSatisfying(
                        Binder.Outcome.Bound.class,
                        bound -> assertThat(bound.allocation().cards())
                                .as("the other card")
                                .containsExactly(1));
        assertThat(bind(one, c, "n1"))
                .isEqualTo(new Binder.Outcome.Failed(
                        "node n1 no longer fits the pod: no card has 12000 MiB free; largest free is 4384 "
                                + "MiB on card 0"));
        assertThat(stored("c").getMetadata().getAnnotations()).isNullOrEmpty();
    }

    @Test
    void aFailedBindLeavesNoAllocationBehind() {
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        api.addPod(p);
        ClusterCache cache = cache();
        api.failBinds(true);
        assertThat(bind(binder(cache), p, "n1"))
                .isEqualTo(new Binder.Outcome.Failed("binding to node n1 failed: bindings are refused"));
        assertThat(stored("a").getMetadata().getAnnotations()).isEmpty();
        assertThat(api.ledger("n1")).isEmpty();
        assertThat(cache.snapshot().state("n1").usedMilli(0)).isZero();
    }

    @Test
    void aBindKubeSchedulerGaveUpOnThatLandedAnywayKeepsItsCardsWhenTheRetryChoseAnotherNode() {
        api.addNode(node("n2", 2, 16_384, 0));
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        api.addPod(p);
        ClusterCache stale = cache();
        assertThat(bind(binder(cache()), p, "n1")).isInstanceOf(Binder.Outcome.Bound.class); // timed out, landed
        String landed = stored("a").getMetadata().getAnnotations().get(Annotations.ALLOCATION);

        assertThat(bind(binder(stale), p, "n2"))
                .isEqualTo(new Binder.Outcome.Failed("pod is already bound to node n1"));
        assertThat(stored("a").getSpec().getNodeName()).isEqualTo("n1");
        assertThat(stored("a").getMetadata().getAnnotations())
                .as("the allocation of the bind that landed, not removed")
                .containsEntry(Annotations.ALLOCATION, landed);
        assertThat(api.ledger("n2")).isEmpty();
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-a");
    }

    @Test
    void aPodSeenBoundElsewhereIsRefusedWithoutAWrite() {
        api.addNode(node("n2", 2, 16_384, 0));
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        api.addPod(p);
        assertThat(bind(binder(cache()), p, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        int calls = api.calls();
        assertThat(bind(binder(cache()), p, "n2"))
                .isEqualTo(new Binder.Outcome.Failed("pod is already bound to node n1"));
        assertThat(api.calls()).isEqualTo(calls);
    }

    @Test
    void deletedPodsLoseTheirReservation() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "2")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu", "2")));
        api.addPod(a);
        ClusterCache cache = cache();
        assertThat(bind(binder(cache), a, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        api.deletePod("ns", "a");
        api.addPod(b);
        ClusterCache fresh = cache();
        assertThat(bind(binder(fresh), b, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-b");
    }

    @Test
    void tidyingANodeDropsTheReservationsOfDeletedPodsAndKeepsTheLiveOnes() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu", "1")));
        api.addPod(a);
        api.addPod(b);
        ClusterCache cache = cache();
        Binder binder = binder(cache);
        assertThat(bind(binder, a, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder, b, "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        api.deletePod("ns", "a");
        binder(cache()).tidy("n1");
        assertThat(api.ledger("n1")).containsOnlyKeys("uid-b");
        api.deletePod("ns", "b");
        binder(cache()).tidy("n1");
        assertThat(api.ledger("n1")).isEmpty();
    }

    @Test
    void aStaleReservationOfAPodNobodyBoundIsDroppedButABoundOnesIsKept() {
        Pod a = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu", "1")));
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu", "2")));
        api.addPod(a);
        api.addPod(b);
        ClusterCache cache = cache();
        api.failBinds(true);
        // a replica that died after reserving: simulate by writing the reservation directly
        var entry = new LedgerEntry(
                "ns/a",
                now.get(),
                new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "GPU-n1-0", 1000, 16_384)))));
        api.writeLedger("n1", Map.of("uid-a", entry.toJson()), null);
        api.failBinds(false);
        assertThat(bind(binder(cache), b, "n1")).as("fresh: kept").isInstanceOf(Binder.Outcome.Failed.class);
        now.addAndGet(61_000);
        assertThat(bind(binder(cache), b, "n1"))
                .as("stale and unbound: dropped")
                .isInstanceOf(Binder.Outcome.Bound.class);
    }

    @Test
    void aRetriedBindToTheSameNodeSucceedsWithTheSameCards() {
        Pod p = pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "100")));
        api.addPod(p);
        ClusterCache cache = cache();
        Binder binder = binder(cache);
        Binder.Outcome first = bind(binder, p, "n1");
        Binder.Outcome again = bind(binder, p, "n1");
        assertThat(again).isEqualTo(first);
    }

    @Test
    void podsThatAskedByAliyunOrVolcanoNamesGetTheirAnnotations() {
        Pod ali = pod("ns", "ali", "uid-1", container("main", Map.of("aliyun.com/gpu-mem", "4")));
        Pod vol = pod("ns", "vol", "uid-2", container("main", Map.of("volcano.sh/gpu-memory", "1024")));
        api.addPod(ali);
        api.addPod(vol);
        Binder binder = binder(cache());
        bind(binder, ali, "n1");
        bind(binder, vol, "n1");
        String time = Long.toString(now.get() * 1_000_000L);
        assertThat(stored("ali").getMetadata().getAnnotations())
                .containsEntry("ALIYUN_COM_GPU_MEM_IDX", "0")
                .containsEntry("ALIYUN_COM_GPU_MEM_POD", "4")
                .containsEntry("ALIYUN_COM_GPU_MEM_DEV", "16")
                .containsEntry("ALIYUN_COM_GPU_MEM_ASSUME_TIME", time)
                .containsEntry("ALIYUN_COM_GPU_MEM_ASSIGNED", "false");
        assertThat(stored("vol").getMetadata().getAnnotations())
                .containsEntry("volcano.sh/gpu-index", "0")
                .containsEntry("volcano.sh/predicate-time", time)
                .containsEntry("volcano.sh/gpu-assigned", "false");
    }

    /**
     * Node a1, which the device-plugin agent runs on (it labels it so, and marks the pods kubelet admitted), and
     * {@code pods}, as the cache sees them.
     */
    private ClusterCache agentNodeAnd(Pod... pods) {
        api.addNode(new io.fabric8.kubernetes.api.model.NodeBuilder(node("a1", 2, 16_384, 0))
                .editMetadata()
                .addToLabels("elasticgpu.io/gpu.api", "device-plugin")
                .endMetadata()
                .build());
        List.of(pods).forEach(api::addPod);
        return cache();
    }

    private static Pod hami(String name, String memoryMib, String cores) {
        return pod(
                "ns",
                name,
                "uid-" + name,
                container(
                        "main",
                        Map.of("nvidia.com/gpu", "1", "nvidia.com/gpumem", memoryMib, "nvidia.com/gpucores", cores)));
    }

    private void admitted(String name, ClusterCache cache) {
        Pod p = stored(name);
        p.getMetadata().getAnnotations().put(Annotations.PHASE, Annotations.PHASE_ALLOCATED);
        api.addPod(p);
        api.feed(cache);
    }

    @Test
    void aPodKubeletCouldNotTellFromOneWaitingForAdmissionIsBoundOnceThatOneIsAdmitted() {
        Pod small = hami("small", "2048", "10");
        Pod twin = hami("twin", "2048", "10");
        Pod big = hami("big", "4096", "20");
        ClusterCache cache = agentNodeAnd(small, twin, big);
        Binder binder = binder(cache);

        assertThat(bind(binder, small, "a1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder, big, "a1"))
                .as("both ask nvidia.com/gpu: 1, with other shares")
                .isEqualTo(new Binder.Outcome.Held(
                        "pod ns/small waits for kubelet on node a1 and asks nvidia.com/gpu: 1 as this pod does, with "
                                + "another share:"
                                + " kubelet's Allocate names no pod, so this pod is bound there once that one is "
                                + "admitted (at most 60 s);"
                                + " kube-scheduler will retry"));
        assertThat(api.ledger("a1")).as("nothing reserved for it").containsOnlyKeys("uid-small");
        assertThat(bind(binder, twin, "a1"))
                .as("the same share: a wrong guess gives it the same")
                .isInstanceOf(Binder.Outcome.Bound.class);

        admitted("small", cache);
        assertThat(bind(binder, big, "a1")).as("the twin still waits").isInstanceOf(Binder.Outcome.Held.class);
        admitted("twin", cache);
        assertThat(bind(binder, big, "a1")).isInstanceOf(Binder.Outcome.Bound.class);
    }

    @Test
    void lookAlikesWaitForEachOtherEvenBeforeTheInformerShowsEitherPod() {
        ClusterCache cache = agentNodeAnd(); // the informer has shown neither pod yet: kube-scheduler's word only
        Binder binder = binder(cache);
        Pod small = hami("small", "2048", "10");
        Pod big = hami("big", "4096", "20");
        api.addPod(small);
        api.addPod(big);
        assertThat(bind(binder, small, "a1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder, big, "a1")).isInstanceOf(Binder.Outcome.Held.class);
        assertThat(api.ledger("a1")).containsOnlyKeys("uid-small");
    }

    @Test
    void lookAlikesWaitOnlyOnAgentNodesAndForAMinuteAtMost() {
        ClusterCache cache =
                agentNodeAnd(hami("small", "2048", "10"), hami("big", "4096", "20"), hami("other", "4096", "20"));
        Binder binder = binder(cache);
        assertThat(bind(binder, stored("small"), "n1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder, stored("big"), "n1"))
                .as("no agent labelled n1: nothing there marks admissions")
                .isInstanceOf(Binder.Outcome.Bound.class);

        Pod a1small = hami("small-2", "2048", "10");
        api.addPod(a1small);
        api.feed(cache);
        assertThat(bind(binder, a1small, "a1")).isInstanceOf(Binder.Outcome.Bound.class);
        now.addAndGet(59_000);
        assertThat(bind(binder, stored("other"), "a1")).isInstanceOf(Binder.Outcome.Held.class);
        now.addAndGet(1_000);
        assertThat(bind(binder, stored("other"), "a1"))
                .as("a pod not admitted a minute after its bind is stuck; it holds nobody up")
                .isInstanceOf(Binder.Outcome.Bound.class);
    }

    @Test
    void aLookAlikeKubeletRefusedOrThatWasDeletedHoldsNobodyUp() {
        ClusterCache cache = agentNodeAnd(); // kube-scheduler's word only, as in the moments after a bind
        Binder binder = binder(cache);
        Pod small = hami("small", "2048", "10");
        Pod big = hami("big", "4096", "20");
        Pod other = hami("other", "1024", "5");
        List.of(small, big, other).forEach(api::addPod);
        assertThat(bind(binder, small, "a1")).isInstanceOf(Binder.Outcome.Bound.class);
        assertThat(bind(binder, big, "a1")).isInstanceOf(Binder.Outcome.Held.class);

        Pod refused = stored("small");
        refused.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                .withPhase("Failed")
                .withReason("UnexpectedAdmissionError")
                .build());
        cache.upsertPod(refused);
        assertThat(bind(binder, big, "a1"))
                .as("kubelet refused small: it will never be admitted")
                .isInstanceOf(Binder.Outcome.Bound.class);

        cache.deletePod(stored("big"));
        api.deletePod("ns", "big");
        assertThat(bind(binder, other, "a1"))
                .as("big was deleted before kubelet admitted it")
                .isInstanceOf(Binder.Outcome.Bound.class);
    }
}
