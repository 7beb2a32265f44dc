package io.elasticgpu.e2e.dra;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.ElasticGpuController;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.deploy.RenderedChart;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ElasticGpuCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An ElasticGPUClaim asking whole cards, used by a pod that lands on a node offering its cards through DRA: the
 * webhook gives the pod the claim's {@code elasticgpu.io/gpu}, kube-scheduler serves it through the chart's
 * DeviceClass mapping (KEP-5004) with a ResourceClaim it makes, and the controller makes that card's ElasticGPU with
 * the pod's container and the ElasticGPUClaim, which is then Bound as on a device plugin node.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraElasticGpuClaimE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void aClaimForAWholeCardIsBoundThroughTheClaimKubeSchedulerMadeOnADraNode(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        ElasticGpuCrds.apply(cluster.controlPlane());
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        RenderedChart.rendered(client, "all-options").stream().filter(DeviceClass.class::isInstance)
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("claimed", 1, "Tesla-T4", 15_360))).getFirst();
        DraSliceE2E.withoutExtendedResources(client, node);
        client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.PHYSICAL, ElasticGPUClassSpec.ReclaimPolicy.Delete))
                .create();
        client.resource(ElasticGPUClaim.of(ns, "whole", ns, Map.of(ResourceNames.GPU, new Quantity("1")))).create();
        AgentConfig config = new AgentConfig(node, dir.resolve("unused"), dir.resolve("unused.sock"), AgentConfig.Mode.SLICES, 4,
                256, 1024, true, false, Path.of("/tmp/nvidia-mps"), new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)));
        Hardware oneT4 = new Hardware("535.104.05", List.of(new Gpu(0, "GPU-" + node + "-0", "Tesla T4", 15_360,
                "00000000:01:00.0", 0, 0, false)), Topology.uniform(1, Link.UNKNOWN));
        try (KubernetesDraCluster draCluster = new KubernetesDraCluster(client, node, config.units());
             DraNodeAgent agent = DraNodeAgent.start(config, new DraConfig(dir.resolve("plugin"), dir.resolve("registry"),
                     dir.resolve("cdi")), SimulatedBackend.of(oneT4), draCluster, Instant::now, new AgentMetrics(node));
             AdmissionWebhook webhook = AdmissionWebhook.start(client, WebhookConfig.forUrl(new InetSocketAddress("127.0.0.1", 0),
                     "127.0.0.1").withCertificateLifetime(Duration.ofHours(1)));
             ElasticGpuController controller = new ElasticGpuController(client, Duration.ofSeconds(10))) {
            controller.start();
            await().atMost(WAIT).until(() -> client.resources(ResourceSlice.class).withName(SlicePublisher.sliceName(node)).get() != null);

            Pod pod = WebhookRollout.createOnceMutated(client, ns, n -> new PodBuilder().withNewMetadata().withName("train-" + n)
                    .addToAnnotations("elasticgpu.io/egpuc-main", "whole").endMetadata()
                    .withNewSpec().addNewContainer().withName("main").withImage("registry.example/train:1").endContainer().endSpec()
                    .build(), WebhookRollout.hasLimit(ResourceNames.GPU), Duration.ofSeconds(30));
            String name = pod.getMetadata().getName();

            await().atMost(WAIT).untilAsserted(() -> {
                Pod bound = client.pods().inNamespace(ns).withName(name).get();
                assertThat(bound.getSpec().getNodeName()).isEqualTo(node);
                assertThat(bound.getStatus().getExtendedResourceClaimStatus()).as("the claim kube-scheduler made").isNotNull();
                ElasticGPU gpu = client.resources(ElasticGPU.class).list().getItems().stream()
                        .filter(g -> g.getSpec().getPodRef() != null && name.equals(g.getSpec().getPodRef().getName()))
                        .findFirst().orElseThrow(() -> new AssertionError("no ElasticGPU for pod " + name));
                assertThat(gpu.getSpec().getPodRef().getContainer()).isEqualTo("main");
                assertThat(gpu.getSpec().getClaimRef()).isNotNull();
                assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo("whole");
                ElasticGPUClaim claim = client.resources(ElasticGPUClaim.class).inNamespace(ns).withName("whole").get();
                assertThat(claim.getStatus().getPhase()).isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
                assertThat(claim.getStatus().getElasticGPUName()).isEqualTo(gpu.getMetadata().getName());
            });
        } finally {
            client.admissionRegistration().v1().mutatingWebhookConfigurations().withName(WebhookConfig.CONFIGURATION_NAME).delete();
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }
}
