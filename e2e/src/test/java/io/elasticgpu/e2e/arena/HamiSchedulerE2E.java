package io.elasticgpu.e2e.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.bench.arena.HamiAudit;
import io.elasticgpu.bench.arena.HamiNodeStandIn;
import io.elasticgpu.bench.arena.HamiRegistration;
import io.elasticgpu.bench.arena.HamiScheduler;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HAMi's own scheduler extender (v2.10.0, built from the peer source by {@code bench/bin/build-hami}) in our control
 * plane, as the arena runs it: kube-scheduler calls it as HAMi's chart configures it, the kwok node carries the
 * registration HAMi's device plugin would write ({@link HamiRegistration}), and {@link HamiNodeStandIn} plays the part
 * of HAMi's device plugin its scheduler waits for. HAMi's bind locks the node until that part releases it: without
 * the stand-in a second pod is not bound; with it, four pods of 30 % of a card are, none over a card's capacity by
 * HAMi's own annotations.
 */
@ExtendWith(ControlPlaneExtension.class)
class HamiSchedulerE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void hamisSchedulerBindsSharesOnceItsDevicePluginsPartIsPlayed(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        Path hami = HamiScheduler.build(Binaries.E2E_DIR.toAbsolutePath().getParent());
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("hami", 2, "Tesla-T4", 15_360)))
                .getFirst();
        NodeInventory inventory = NodeInventory.fromJson(client.nodes()
                .withName(node)
                .get()
                .getMetadata()
                .getAnnotations()
                .get(Annotations.INVENTORY));
        client.nodes()
                .withName(node)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        HamiRegistration.annotationsPatch(Map.of(
                                HamiRegistration.REGISTER,
                                        HamiRegistration.register(HamiRegistration.devices(
                                                inventory, HamiRegistration.DEFAULT_SPLIT_COUNT)),
                                HamiRegistration.HANDSHAKE,
                                        HamiRegistration.reported(Instant.now(), ZoneId.systemDefault()))));
        HamiScheduler scheduler =
                HamiScheduler.start(hami, cp, HamiScheduler.DEFAULT_NODE_POLICY, HamiScheduler.DEFAULT_GPU_POLICY);
        var pods = client.pods().inNamespace(cluster.namespace());
        try {
            cp.restartScheduler(
                    Files.writeString(cp.workDir().resolve("scheduler-hami.yaml"), scheduler.schedulerConfig()));
            pods.resource(share("share-0")).create();
            await().atMost(WAIT)
                    .until(() -> pods.withName("share-0").get().getSpec().getNodeName() != null);
            pods.resource(share("share-1")).create();
            await().during(Duration.ofSeconds(10))
                    .atMost(WAIT)
                    .until(() -> pods.withName("share-1").get().getSpec().getNodeName() == null);
            assertThat(client.nodes().withName(node).get().getMetadata().getAnnotations())
                    .as("HAMi's lock, taken by the first bind")
                    .containsKey(HamiNodeStandIn.NODE_LOCK);

            try (HamiNodeStandIn standIn = new HamiNodeStandIn(client)) {
                pods.resource(share("share-2")).create();
                pods.resource(share("share-3")).create();
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(pods.list().getItems())
                                .allSatisfy(p -> assertThat(p.getSpec().getNodeName())
                                        .as(p.getMetadata().getName())
                                        .isEqualTo(node)));
            }
            Map<String, HamiAudit.Use> used = HamiAudit.used(pods.list().getItems());
            System.out.println("HamiSchedulerE2E: MiB and % per card "
                    + used.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue().memoryMib() + "/"
                                    + e.getValue().cores())
                            .toList());
            assertThat(used.values()).isNotEmpty().allSatisfy(sum -> {
                assertThat(sum.memoryMib()).isLessThanOrEqualTo(15_360);
                assertThat(sum.cores()).isLessThanOrEqualTo(100);
            });
            assertThat(HamiAudit.overCommitted(
                            pods.list().getItems(), client.nodes().list().getItems()))
                    .isZero();
        } finally {
            cp.restartScheduler(null);
            scheduler.close();
        }
    }

    /** One share as HAMi's users ask it: a card, 30 % of its compute and 30 % of its memory. */
    private static Pod share(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(HamiScheduler.SCHEDULER_NAME)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1"))
                .addToLimits("nvidia.com/gpucores", new Quantity("30"))
                .addToLimits("nvidia.com/gpumem-percentage", new Quantity("30"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }
}
