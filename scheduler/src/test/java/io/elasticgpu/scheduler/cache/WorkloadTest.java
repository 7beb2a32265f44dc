package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    @Test
    void aWorkloadDoesNotChangeWhenTheCacheOrTheListsItWasMadeOfDo() {
        ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(pod("ns", "g", "uid-g", container("main", Map.of("elasticgpu.io/gpu", "1"))));
        cache.upsertPod(bound(pod("ns", "web", "uid-w", container("main", Map.of("cpu", "1"))), "n1", null));
        Workload before = cache.workload();

        cache.upsertPod(pod("ns", "h", "uid-h", container("main", Map.of("elasticgpu.io/gpu", "1"))));
        cache.deleteNode("n1");

        assertThat(before.gpuPods()).extracting(p -> p.getMetadata().getName()).containsExactly("g");
        assertThat(before.hostPods()).extracting(HostPod::cpuMilli).containsExactly(1000L);
        assertThat(cache.workload().gpuPods()).hasSize(2);
        assertThat(cache.workload().hostPods())
                .as("its node has no cards any more")
                .isEmpty();

        List<HostPod> mutable = new ArrayList<>(before.hostPods());
        Workload copied = new Workload(List.of(), mutable, Map.of());
        mutable.clear();
        assertThat(copied.hostPods()).hasSize(1);
    }

    @Test
    void podsAndClaimsAreNamedNamespaceSlashName() {
        assertThat(HostPod.key("ns", "c")).isEqualTo("ns/c");
    }
}
