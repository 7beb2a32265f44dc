package io.elasticgpu.e2e.arena;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.bench.arena.HamiNodeStandIn;
import io.elasticgpu.bench.arena.HamiRegistration;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
        Path hami = buildHami();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("hami", 2, "Tesla-T4", 15_360))).getFirst();
        NodeInventory inventory = NodeInventory.fromJson(client.nodes().withName(node).get().getMetadata().getAnnotations()
                .get(Annotations.INVENTORY));
        client.nodes().withName(node).edit(n -> {
            n.getMetadata().getAnnotations().put(HamiRegistration.REGISTER,
                    HamiRegistration.register(HamiRegistration.devices(inventory, HamiRegistration.DEFAULT_SPLIT_COUNT)));
            n.getMetadata().getAnnotations().put(HamiRegistration.HANDSHAKE, HamiRegistration.reported(Instant.now(), ZoneId.systemDefault()));
            return n;
        });
        int port = Ports.free();
        Path deviceConfig = Files.writeString(cp.workDir().resolve("hami-device-config.yaml"), """
                nvidia:
                  resourceCountName: nvidia.com/gpu
                  resourceMemoryName: nvidia.com/gpumem
                  resourceMemoryPercentageName: nvidia.com/gpumem-percentage
                  resourceCoreName: nvidia.com/gpucores
                  resourcePriorityName: nvidia.com/priority
                  overwriteEnv: false
                  defaultMemory: 0
                  defaultCores: 0
                  defaultGPUNum: 1
                """);
        ManagedProcess scheduler = ManagedProcess.start("hami-scheduler", List.of("env", "KUBECONFIG=" + cp.kubeconfig(),
                hami.toString(), "--http_bind", "127.0.0.1:" + port, "--metrics-bind-address", "127.0.0.1:" + Ports.free(),
                "--device-config-file", deviceConfig.toString()), cp.workDir().resolve("logs").resolve("hami-scheduler.log"));
        var pods = client.pods().inNamespace(cluster.namespace());
        try {
            cp.restartScheduler(Files.writeString(cp.workDir().resolve("scheduler-hami.yaml"), schedulerConfig(port)));
            pods.resource(share("share-0")).create();
            await().atMost(WAIT).until(() -> pods.withName("share-0").get().getSpec().getNodeName() != null);
            pods.resource(share("share-1")).create();
            await().during(Duration.ofSeconds(10)).atMost(WAIT).until(() -> pods.withName("share-1").get().getSpec().getNodeName() == null);
            assertThat(client.nodes().withName(node).get().getMetadata().getAnnotations())
                    .as("HAMi's lock, taken by the first bind").containsKey(HamiNodeStandIn.NODE_LOCK);

            try (HamiNodeStandIn standIn = new HamiNodeStandIn(client)) {
                pods.resource(share("share-2")).create();
                pods.resource(share("share-3")).create();
                await().atMost(WAIT).untilAsserted(() -> assertThat(pods.list().getItems())
                        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).as(p.getMetadata().getName()).isEqualTo(node)));
            }
            Map<String, int[]> used = new HashMap<>();
            for (Pod p : pods.list().getItems()) {
                for (String device : p.getMetadata().getAnnotations().get("hami.io/vgpu-devices-allocated").split("[:;]")) {
                    if (!device.isBlank()) {
                        String[] f = device.split(",");  // uuid,type,memory MiB,cores %
                        int[] sum = used.computeIfAbsent(f[0], k -> new int[2]);
                        sum[0] += Integer.parseInt(f[2]);
                        sum[1] += Integer.parseInt(f[3]);
                    }
                }
            }
            System.out.println("HamiSchedulerE2E: MiB and % per card " + used.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()[0] + "/" + e.getValue()[1]).toList());
            assertThat(used.values()).isNotEmpty().allSatisfy(sum -> {
                assertThat(sum[0]).isLessThanOrEqualTo(15_360);
                assertThat(sum[1]).isLessThanOrEqualTo(100);
            });
        } finally {
            cp.restartScheduler(null);
            scheduler.stop(Duration.ofSeconds(5));
        }
    }

    /** One share as HAMi's users ask it: a card, 30 % of its compute and 30 % of its memory. */
    private static Pod share(String name) {
        return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().addNewContainer().withName("main")
                .withImage("registry.example/train:1").withNewResources().addToLimits("nvidia.com/gpu", new Quantity("1"))
                .addToLimits("nvidia.com/gpucores", new Quantity("30")).addToLimits("nvidia.com/gpumem-percentage", new Quantity("30"))
                .endResources().endContainer().endSpec().build();
    }

    /** kube-scheduler calling HAMi's extender as HAMi's chart configures it: filter and bind, its resources managed. */
    private static String schedulerConfig(int port) {
        return """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: false
                profiles:
                - schedulerName: default-scheduler
                extenders:
                - urlPrefix: "http://127.0.0.1:%d"
                  filterVerb: filter
                  bindVerb: bind
                  nodeCacheCapable: true
                  weight: 1
                  httpTimeout: 30s
                  enableHTTPS: false
                  managedResources:
                  - {name: nvidia.com/gpu, ignoredByScheduler: true}
                  - {name: nvidia.com/gpumem, ignoredByScheduler: true}
                  - {name: nvidia.com/gpucores, ignoredByScheduler: true}
                  - {name: nvidia.com/gpumem-percentage, ignoredByScheduler: true}
                """.formatted(port);
    }

    /** HAMi's scheduler, built (or found built) by bench/bin/build-hami; fails saying what is missing. */
    private static Path buildHami() throws IOException, InterruptedException {
        Path repository = Binaries.E2E_DIR.toAbsolutePath().getParent();
        Process build = new ProcessBuilder(repository.resolve("bench/bin/build-hami").toString(), "--print-path")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(build.waitFor(15, TimeUnit.MINUTES)).as("bench/bin/build-hami finished").isTrue();
        assertThat(build.exitValue()).as("bench/bin/build-hami's exit status (3: no Go, 4: no HAMi source; its stderr says more)")
                .isZero();
        return Path.of(out);
    }
}
