package io.elasticgpu.e2e.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A claim's whole life through every real peer: the apiserver calls our webhook, which gives the pod the claim's
 * resources; the real kube-scheduler asks our extender, which picks the card and binds; kwok runs the pod; our
 * controller makes the ElasticGPU of that card and binds the claim; when the pod goes, the reclaim policy decides.
 */
@ExtendWith(ControlPlaneExtension.class)
class ClaimLifecycleE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static ControlPlane controlPlane;
    private static EgpuProcess extender;

    @BeforeAll
    static void startTheExtenderAndApplyTheCrds(ControlPlane cp) throws IOException {
        controlPlane = cp;
        ElasticGPUCrds.apply(cp);
        extender = EgpuProcess.start(
                "scheduler",
                List.of("--kubeconfig", cp.kubeconfig().toString()),
                cp.workDir().resolve("logs").resolve("claims-extender.log"));
        cp.restartScheduler(Path.of("src/test/resources/scheduler/extender.yaml"), extender.url());
    }

    @AfterAll
    static void restore() {
        controlPlane.restartScheduler(null);
        extender.close();
        try (KubernetesClient client = controlPlane.newClient()) {
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
        }
    }

    @ParameterizedTest
    @EnumSource(ElasticGPUClassSpec.ReclaimPolicy.class)
    void aClaimedPodIsMutatedScheduledOnACardAndItsElasticGpuFollowsTheReclaimPolicy(
            ElasticGPUClassSpec.ReclaimPolicy policy, TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("claims", 2, "Tesla-T4", 15_360)))
                .getFirst();
        createClassAndClaim(client, ns, policy);
        try (AdmissionWebhook webhook = AdmissionWebhook.start(
                        client,
                        WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                                .withCertificateLifetime(Duration.ofHours(1))
                                .build());
                ElasticGPUController controller = new ElasticGPUController(client, Duration.ofSeconds(10))) {
            controller.start();

            Pod pod = createdThroughTheWebhook(client, ns);
            String name = pod.getMetadata().getName();
            assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits())
                    .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"));

            Pod running = client.pods()
                    .inNamespace(ns)
                    .withName(name)
                    .waitUntilCondition(
                            p -> p != null && "Running".equals(p.getStatus().getPhase()),
                            90,
                            java.util.concurrent.TimeUnit.SECONDS);
            assertThat(running.getSpec().getNodeName()).isEqualTo(node);
            int card = PodGrant.fromJson(running.getMetadata().getAnnotations().get(Annotations.ALLOCATION))
                    .containers()
                    .get("main")
                    .getFirst()
                    .card();
            await().atMost(WAIT).untilAsserted(() -> {
                ElasticGPU gpu = elasticGpuOf(client, ns, name);
                assertThat(gpu.getSpec().getNodeName()).isEqualTo(node);
                assertThat(gpu.getSpec().getSource().getGpuShare().getIndex()).isEqualTo(card);
                assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo("notebook");
                ElasticGPUClaim claim = claim(client, ns);
                assertThat(claim.getStatus().getPhase()).isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
                assertThat(claim.getStatus().getElasticGPUName())
                        .isEqualTo(gpu.getMetadata().getName());
            });
            String gpuName = elasticGpuOf(client, ns, name).getMetadata().getName();

            client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();

            await().atMost(WAIT).untilAsserted(() -> {
                ElasticGPU gpu =
                        client.resources(ElasticGPU.class).withName(gpuName).get();
                if (policy == ElasticGPUClassSpec.ReclaimPolicy.Delete) {
                    assertThat(gpu).as("deleted with its pod").isNull();
                } else {
                    assertThat(gpu.getStatus().getPhase()).isEqualTo(ElasticGPUStatus.Phase.Released);
                    assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo("notebook");
                }
            });
        } finally {
            client.resources(ElasticGPU.class).list().getItems().stream()
                    .filter(g -> node.equals(g.getSpec().getNodeName()))
                    .forEach(g -> client.resource(g).delete());
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    private static void createClassAndClaim(
            KubernetesClient client, String ns, ElasticGPUClassSpec.ReclaimPolicy policy) {
        client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.GPU_SHARE, policy))
                .create();
        client.resource(ElasticGPUClaim.of(ns, "notebook", ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();
    }

    /** A pod using the claim, created once the apiserver calls the webhook (it then has the claim's resources). */
    private static Pod createdThroughTheWebhook(KubernetesClient client, String ns) {
        return WebhookRollout.createOnceMutated(
                client,
                ns,
                n -> new PodBuilder()
                        .withNewMetadata()
                        .withName("jupyter-" + n)
                        .addToAnnotations("elasticgpu.io/egpuc-main", "notebook")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.example/jupyter:1")
                        .endContainer()
                        .endSpec()
                        .build(),
                WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                Duration.ofSeconds(30));
    }

    private static ElasticGPU elasticGpuOf(KubernetesClient client, String ns, String pod) {
        return client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> g.getSpec().getPodRef() != null
                        && ns.equals(g.getSpec().getPodRef().getNamespace())
                        && pod.equals(g.getSpec().getPodRef().getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ElasticGPU for pod " + ns + "/" + pod));
    }

    private static ElasticGPUClaim claim(KubernetesClient client, String ns) {
        return client.resources(ElasticGPUClaim.class)
                .inNamespace(ns)
                .withName("notebook")
                .get();
    }
}
