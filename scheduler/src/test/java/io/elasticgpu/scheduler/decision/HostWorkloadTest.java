package io.elasticgpu.scheduler.decision;

import static io.elasticgpu.scheduler.K8s.allocated;
import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.claim;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.draPod;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostWorkloadTest {

    private final ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);

    @Test
    void aDraPodIsOnePodOfItsCpuAndMemoryWithItsClaimsCardsAllocatedOrNot() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertClaim(claim("ns", "waiting", "uid-cw", "4Gi"));
        cache.upsertPod(draPod("ns", "pending", "uid-p", "waiting"));
        cache.upsertClaim(allocated(claim("ns", "held", "uid-ch", "8Gi"), "n1", 0, 8192, "uid-b"));
        cache.upsertPod(bound(draPod("ns", "running", "uid-b", "held"), "n1", null));

        assertThat(HostWorkload.of(cache, PodAsks.Units.DEFAULT))
                .containsExactlyInAnyOrder(
                        new Ask(1000, 0, 1, 0, 4096, List.of(), 0), new Ask(1000, 0, 1, 0, 8192, List.of(), 0));
    }

    @Test
    void podsWithoutCardsCountTheirCpuClaimsNoPodNamesTheirCardsAndOtherDriversClaimsNothing() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(pod("ns", "web", "uid-w", container("main", Map.of("cpu", "2"))), "n1", null));
        cache.upsertClaim(claim("ns", "alone", "uid-ca", "4Gi"));
        cache.upsertClaim(new ResourceClaimBuilder(claim("ns", "nic", "uid-cn", "1Gi"))
                .editSpec()
                .editDevices()
                .editFirstRequest()
                .editExactly()
                .withDeviceClassName("nic.example.com")
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build());
        cache.upsertPod(draPod("ns", "nic-user", "uid-n", "nic"));

        assertThat(HostWorkload.of(cache, PodAsks.Units.DEFAULT))
                .containsExactlyInAnyOrder(Ask.cpuOnly(2000, 0), new Ask(0, 0, 1, 0, 4096, List.of(), 0));
    }

    @Test
    void theClaimKubeSchedulerMadeForAGpuPodOnADraNodeIsNotCountedAgain() {
        cache.upsertNode(new NodeBuilder(node("n1", 2, 16_384, 0))
                .editMetadata()
                .addToLabels(NodeLabels.API, NodeLabels.API_DRA)
                .endMetadata()
                .build());
        cache.upsertPod(bound(
                pod("ns", "whole", "uid-g", container("main", Map.of("elasticgpu.io/gpu", "1"))), "n1", null));
        cache.upsertClaim(allocated(
                new ResourceClaimBuilder(claim("ns", "whole-gpu-x7k", "uid-cg", "16Gi"))
                        .editMetadata()
                        .addToAnnotations(DraAsks.EXTENDED_RESOURCE_CLAIM, "true")
                        .endMetadata()
                        .build(),
                "n1",
                0,
                16_384,
                "uid-g"));
        cache.upsertClaim(claim("ns", "alone", "uid-ca", "4Gi"));

        assertThat(cache.workload().gpuPods())
                .extracting(p -> p.getMetadata().getName())
                .containsExactly("whole");
        assertThat(HostWorkload.of(cache, PodAsks.Units.DEFAULT))
                .containsExactly(new Ask(0, 0, 1, 0, 4096, List.of(), 0));
    }
}
