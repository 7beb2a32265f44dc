package io.elasticgpu.e2e.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.deploy.RenderedChart;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * ElasticGPUClaims used by pods on a node offering its cards through DRA (webhook and controller in-process, the
 * default kube-scheduler, a DRA-mode agent): a claim asking whole cards through the extended resource and the chart's
 * DeviceClass mapping (KEP-5004), a claim asking a share through a claim made from the template the controller makes
 * for claims of a class with {@code api: dra}. Either way the controller makes that card's ElasticGPU with the pod's
 * container and the ElasticGPUClaim, which is then Bound as on a device plugin node.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraElasticGPUClaimE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void aClaimForAWholeCardIsBoundThroughTheClaimKubeSchedulerMadeOnADraNode(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String node = draNode(cluster);
        client.resource(ElasticGPUClass.of(
                        ns, ElasticGPUClassSpec.Provisioner.PHYSICAL, ElasticGPUClassSpec.ReclaimPolicy.Delete))
                .create();
        client.resource(ElasticGPUClaim.of(ns, "whole", ns, Map.of(ResourceNames.GPU, new Quantity("1"))))
                .create();
        try (Running running = run(client, node)) {
            String name = podUsing(client, ns, "whole", WebhookRollout.hasLimit(ResourceNames.GPU));
            await().atMost(WAIT).untilAsserted(() -> {
                Pod bound = client.pods().inNamespace(ns).withName(name).get();
                assertThat(bound.getSpec().getNodeName()).isEqualTo(node);
                assertThat(bound.getStatus().getExtendedResourceClaimStatus())
                        .as("the claim kube-scheduler made")
                        .isNotNull();
                assertBound(client, ns, name, "whole");
            });
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    /**
     * An ElasticGPUClaim asking a share, of a class with {@code api: dra}: the controller makes the template
     * egpuc-notebook from it, the webhook gives the pod a claim from that template instead of extended resources,
     * kube-scheduler's allocator gives the claim 4 GiB and 30 % of the card, and the claim is Bound to the ElasticGPU
     * of that share.
     */
    @Test
    void aClaimForAShareOfADraClassIsServedByAClaimFromItsTemplateAndBound(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String node = draNode(cluster);
        ElasticGPUClass dra =
                ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, ElasticGPUClassSpec.ReclaimPolicy.Delete);
        dra.getSpec().setApi(ElasticGPUClassSpec.Api.DRA);
        client.resource(dra).create();
        client.resource(ElasticGPUClaim.of(
                        ns,
                        "notebook",
                        ns,
                        Map.of(
                                ResourceNames.GPU_MEMORY,
                                new Quantity("4096"),
                                ResourceNames.GPU_CORE,
                                new Quantity("30"))))
                .create();
        try (Running running = run(client, node)) {
            await().atMost(WAIT)
                    .until(() -> client.resources(ResourceClaimTemplate.class)
                                    .inNamespace(ns)
                                    .withName(DraNames.claimTemplate("notebook"))
                                    .get()
                            != null);
            String name = podUsing(
                    client,
                    ns,
                    "notebook",
                    p -> !p.getSpec().getResourceClaims().isEmpty());
            Pod created = client.pods().inNamespace(ns).withName(name).get();
            assertThat(created.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getLimits())
                    .as("no extended resources")
                    .isNullOrEmpty();
            assertThat(created.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getClaims())
                    .extracting(c -> c.getName())
                    .containsExactly("egpuc-notebook");
            await().atMost(WAIT).untilAsserted(() -> {
                Pod bound = client.pods().inNamespace(ns).withName(name).get();
                assertThat(bound.getSpec().getNodeName()).isEqualTo(node);
                ElasticGPU gpu = assertBound(client, ns, name, "notebook");
                assertThat(gpu.getSpec().getCapacity())
                        .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"))
                        .containsEntry(ResourceNames.GPU_CORE, new Quantity("30"));
            });
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    /** A kwok node offering one T4 through DRA only, with the chart's DeviceClasses and the ElasticGPU CRDs. */
    private String draNode(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ElasticGPUCrds.apply(cluster.controlPlane());
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        RenderedChart.rendered(client, "all-options").stream()
                .filter(DeviceClass.class::isInstance)
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("claimed", 1, "Tesla-T4", 15_360)))
                .getFirst();
        DraSliceE2E.withoutExtendedResources(client, node);
        return node;
    }

    /** The node's DRA agent, the webhook and the controller, until closed. */
    private record Running(List<AutoCloseable> parts) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            for (AutoCloseable part : parts.reversed()) {
                part.close();
            }
        }
    }

    private Running run(KubernetesClient client, String node) {
        List<AutoCloseable> parts = new java.util.ArrayList<>();
        AgentConfig config = DraAgents.config(node, dir);
        Hardware oneT4 = new Hardware(
                "535.104.05",
                List.of(new Gpu(0, "GPU-" + node + "-0", "Tesla T4", 15_360, "00000000:01:00.0", 0, 0, false)),
                Topology.uniform(1, Link.UNKNOWN));
        KubernetesDraCluster draCluster = new KubernetesDraCluster(client, node, config.units());
        parts.add(draCluster);
        parts.add(DraNodeAgent.start(
                config,
                new DraConfig(dir.resolve("plugin"), dir.resolve("registry"), dir.resolve("cdi")),
                SimulatedBackend.of(oneT4),
                draCluster,
                Instant::now,
                new AgentMetrics(node)));
        parts.add(AdmissionWebhook.start(
                client,
                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                        .withCertificateLifetime(Duration.ofHours(1))
                        .build()));
        parts.add(() -> client.admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(WebhookConfig.CONFIGURATION_NAME)
                .delete());
        ElasticGPUController controller = new ElasticGPUController(client, Duration.ofSeconds(10));
        parts.add(controller);
        controller.start();
        await().atMost(WAIT)
                .until(() -> client.resources(ResourceSlice.class)
                                .withName(SlicePublisher.sliceName(node))
                                .get()
                        != null);
        return new Running(parts);
    }

    /** A pod whose container main names ElasticGPUClaim {@code claim}, created once the webhook has mutated it. */
    private static String podUsing(
            KubernetesClient client, String ns, String claim, java.util.function.Predicate<Pod> mutated) {
        return WebhookRollout.createOnceMutated(
                        client,
                        ns,
                        n -> new PodBuilder()
                                .withNewMetadata()
                                .withName(claim + "-" + n)
                                .addToAnnotations("elasticgpu.io/egpuc-main", claim)
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("main")
                                .withImage("registry.example/train:1")
                                .endContainer()
                                .endSpec()
                                .build(),
                        mutated,
                        Duration.ofSeconds(30))
                .getMetadata()
                .getName();
    }

    /**
     * The ElasticGPU of pod {@code pod}'s container main, bound to ElasticGPUClaim {@code claim}, which is Bound to it.
     * */
    private static ElasticGPU assertBound(KubernetesClient client, String ns, String pod, String claim) {
        ElasticGPU gpu = client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> g.getSpec().getPodRef() != null
                        && pod.equals(g.getSpec().getPodRef().getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ElasticGPU for pod " + pod));
        assertThat(gpu.getSpec().getPodRef().getContainer()).isEqualTo("main");
        assertThat(gpu.getSpec().getClaimRef()).isNotNull();
        assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo(claim);
        ElasticGPUClaim bound = client.resources(ElasticGPUClaim.class)
                .inNamespace(ns)
                .withName(claim)
                .get();
        assertThat(bound.getStatus().getPhase()).isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
        assertThat(bound.getStatus().getElasticGPUName())
                .isEqualTo(gpu.getMetadata().getName());
        return gpu;
    }
}
