package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.draPod;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodsTest {

    private final Pods pods = new Pods(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT));
    private final Pod slice =
            pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192", "cpu", "2")));
    private final PodGrant onCard1 =
            new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(1, "GPU-n1-1", 0, 8192))));

    @Test
    void aPodIsUnknownUntilSeenLiveWhileItHoldsAndGoneOnceDeleted() {
        assertThat(pods.status("uid-a")).isEqualTo(PodPresence.UNKNOWN);
        assertThat(pods.seen(slice, false, n -> false)).as("waiting for a node").isEmpty();
        assertThat(pods.status("uid-a")).isEqualTo(PodPresence.LIVE);
        assertThat(pods.gpuPod("ns", "a")).contains(slice);

        pods.gone("uid-a", "ns/a");
        assertThat(pods.status("uid-a")).isEqualTo(PodPresence.GONE);
        assertThat(pods.gpuPod("ns", "a")).isEmpty();
        assertThat(pods.count()).isZero();
    }

    @Test
    void aBoundPodHoldsWhatItsAllocationSaysOnItsNode() {
        assertThat(pods.seen(bound(slice, "n1", onCard1), false, n -> false)).contains(new Pods.Bound(onCard1, true));

        assertThat(pods.boundNode("uid-a")).contains("n1");
        // one placement: the pod's 2000 m CPU with its container's 8192 MiB share of card 1
        assertThat(pods.observed("uid-a").placements()).singleElement().satisfies(p -> {
            assertThat(p.ask().cpuMilli()).isEqualTo(2000);
            assertThat(p.shares())
                    .extracting(s -> s.card() + ":" + s.memoryMib())
                    .containsExactly("1:8192");
        });
        pods.gone("uid-a", "ns/a");
        assertThat(pods.observed("uid-a")).isNull();
        assertThat(pods.boundNode("uid-a")).isEmpty();
    }

    @ParameterizedTest(name = "{0}: unknown holder {1}")
    @CsvSource({
        // its allocation names its node: its cards are known
        "readable, false",
        // an annotation nobody can read, or none at all: which cards it holds, nobody can tell
        "garbled, true",
        "missing, true",
        // an allocation naming another node is no allocation here
        "elsewhere, true",
        // a bind of this replica in flight: its annotation comes with the bind
        "assumed, false",
        // on a DRA node the claim kube-scheduler made for the pod holds its cards
        "dra-node, false",
    })
    void aBoundGpuPodWhoseCardsNobodyCanNameIsAnUnknownHolderOfItsNode(String allocation, boolean unknown) {
        Pod pod = switch (allocation) {
            case "readable" -> bound(slice, "n1", onCard1);
            case "elsewhere" -> bound(slice, "n1", new PodGrant("n2", onCard1.containers()));
            case "garbled" ->
                new PodBuilder(bound(slice, "n1", null))
                        .editMetadata()
                        .addToAnnotations("elasticgpu.io/allocation", "{not json")
                        .endMetadata()
                        .build();
            default -> bound(slice, "n1", null); // missing, assumed, dra-node: no annotation yet
        };
        pods.seen(pod, allocation.equals("assumed"), n -> allocation.equals("dra-node"));

        assertThat(pods.unknownHolders()).isEqualTo(unknown ? Map.of("n1", "ns/a") : Map.of());
        assertThat(pods.unaccounted()).isEqualTo(unknown ? 1 : 0);
    }

    @Test
    void eachNodeNamesItsFirstUnknownHolderByNameAndEachPodIsCountedOnceAsUnaccounted() {
        Pod b = pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu", "1")));
        pods.seen(bound(b, "n1", null), false, n -> false);
        pods.seen(bound(slice, "n1", null), false, n -> false);
        pods.seen(bound(slice, "n1", null), false, n -> false);

        assertThat(pods.unknownHolders()).isEqualTo(Map.of("n1", "ns/a"));
        assertThat(pods.unaccounted()).as("two pods, one of them seen twice").isEqualTo(2);
        pods.seen(bound(slice, "n1", onCard1), false, n -> false);
        assertThat(pods.unknownHolders()).as("ns/a readable now").isEqualTo(Map.of("n1", "ns/b"));
    }

    @ParameterizedTest(name = "{0}: in the workload {1}")
    @CsvSource({
        // bound to a node with cards: it takes CPU and memory GPU pods need
        "on-gpu-node, true",
        // bound elsewhere: not our nodes
        "on-cpu-node, false",
        // pending for the scheduler a GPU pod uses: it will land among the GPU pods
        "pending-here, true",
        // pending for another scheduler
        "pending-elsewhere, false",
        // pending with a ResourceClaim: a DRA pod, whose cards come through its claim
        "pending-with-claim, true",
    })
    void thePodsWithoutGpusInTheWorkloadAreThoseOnGpuNodesPendingForTheGpuPodsSchedulerOrWithClaims(
            String where, boolean counted) {
        pods.seen(
                new PodBuilder(slice)
                        .editSpec()
                        .withSchedulerName("gpu-scheduler")
                        .endSpec()
                        .build(),
                false,
                n -> false);
        Pod web = pod("ns", "web", "uid-w", container("main", Map.of("cpu", "1")));
        Pod pod = switch (where) {
            case "on-gpu-node" -> bound(web, "n1", null);
            case "on-cpu-node" -> bound(web, "cpu-node", null);
            case "pending-here" ->
                new PodBuilder(web)
                        .editSpec()
                        .withSchedulerName("gpu-scheduler")
                        .endSpec()
                        .build();
            case "pending-with-claim" -> draPod("ns", "web", "uid-w", "c");
            default -> web;
        };
        pods.seen(pod, false, n -> false);

        List<HostPod> workload = pods.hostWorkload("n1"::equals);
        assertThat(workload).hasSize(counted ? 1 : 0);
        assertThat(pods.count()).as("one GPU pod and one without").isEqualTo(2);
        assertThat(pods.gpuPods()).extracting(p -> p.getMetadata().getName()).containsExactly("a");
    }

    @Test
    void aPodWithoutGpusKeepsWhatTheWorkloadNeedsOfIt() {
        pods.seen(bound(draPod("ns", "d", "uid-d", "claim-1"), "n1", null), false, n -> false);

        assertThat(pods.hostWorkload(n -> true))
                .containsExactly(new HostPod(null, "n1", 1000, 0, List.of("ns/claim-1")));
    }
}
