package io.elasticgpu.e2e.controller;

import static io.elasticgpu.localcluster.nodes.AllocatedPods.uuid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.provisioning.SyncReport;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.AllocatedPods;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A controller that starts (a new leader) where every ElasticGPU is already in place, against the real
 * kube-apiserver: its first sync runs on complete caches and finds nothing to write. In the soak a new leader's
 * first sync, run on the pods' events while the ElasticGPUs were still being listed, tried to create all 1,085.
 */
@ExtendWith(ControlPlaneExtension.class)
class ControllerStartE2E {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int NODES = 8;
    private static final int CARDS = 8;
    private static final int PODS_PER_CARD = 4;

    @BeforeAll
    static void applyTheGeneratedCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    @Test
    void aNewLeadersFirstSyncRunsOnCompleteCachesAndWritesNothingWhereAllIsInPlace(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        List<String> nodes = cluster.createGpuNodes(java.util.stream.IntStream.range(0, NODES)
                .mapToObj(i -> GpuNodeSpec.of("gpu" + i, CARDS, "Tesla-T4", 15_360))
                .toList());
        try {
            int pods = 0;
            for (String node : nodes) {
                for (int card = 0; card < CARDS; card++) {
                    for (int i = 0; i < PODS_PER_CARD; i++) {
                        AllocatedPods.create(
                                client,
                                cluster.namespace(),
                                "p-" + pods++,
                                node,
                                Map.of("main", List.of(new Share(card, uuid(node, card), 200, 2048))),
                                null);
                    }
                }
            }
            int expected = pods;
            try (ElasticGPUController first = new ElasticGPUController(client, Duration.ofMinutes(1))) {
                first.start();
                await().atMost(WAIT).until(() -> elasticGpus(client, nodes) == expected);
            }

            try (ElasticGPUController next = new ElasticGPUController(client, Duration.ofMinutes(1))) {
                next.start();
                await().atMost(WAIT).until(() -> next.firstSync().isPresent());
                SyncReport report = next.firstSync().orElseThrow();
                assertThat(report)
                        .as("the new leader's first sync, on caches that hold all %d pods and ElasticGPUs", expected)
                        .extracting(
                                SyncReport::toCreate, SyncReport::toDelete, SyncReport::conflicts, SyncReport::failed)
                        .containsExactly(0, 0, 0, 0);
            }
            assertThat(elasticGpus(client, nodes)).isEqualTo(expected);
        } finally {
            client.resources(ElasticGPU.class).list().getItems().stream()
                    .filter(g -> nodes.contains(g.getSpec().getNodeName()))
                    .forEach(g -> client.resource(g).delete());
        }
    }

    private static long elasticGpus(KubernetesClient client, List<String> nodes) {
        return client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> nodes.contains(g.getSpec().getNodeName()))
                .count();
    }
}
