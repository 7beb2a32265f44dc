package io.elasticgpu.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.ShareAdmission;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admission webhook in-process on 127.0.0.1, called by the real kube-apiserver through the
 * MutatingWebhookConfiguration it registers (URL and CA bundle): pods naming a claim get its resources or are
 * refused with the webhook's message; with the webhook down, only pods naming a claim are refused. With isolation by
 * MPS, pods asking a share MPS cannot divide among their processes are refused (the shares webhook's CEL match
 * condition, which the apiserver compiles and evaluates, sends them); with the webhook down they are admitted.
 */
@ExtendWith(ControlPlaneExtension.class)
class WebhookE2E {

    private static final AtomicInteger PODS = new AtomicInteger();

    @BeforeAll
    static void applyTheCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    /** The configuration outlives the webhook on purpose; other tests of the run must not meet it. */
    @AfterAll
    static void removeTheConfiguration(ControlPlane controlPlane) {
        try (KubernetesClient client = controlPlane.newClient()) {
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
        }
    }

    @Test
    void aPodNamingAClaimGetsItsResourcesAndOneNamingAMissingClaimIsRefused(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (AdmissionWebhook webhook = startWebhook(client)) {
            createClassAndClaim(client, ns, "slice");

            Pod mutated = createdOnceTheApiserverCallsTheWebhook(client, ns, "slice");
            var resources = mutated.getSpec().getContainers().getFirst().getResources();
            assertThat(resources.getLimits()).containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"));
            assertThat(resources.getRequests()).containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"));

            assertThatThrownBy(() -> client.pods()
                            .inNamespace(ns)
                            .resource(pod("train", "big-gpu"))
                            .create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(403);
                        assertThat(e.getMessage())
                                .contains(("admission webhook \"claims.elasticgpu.io\" denied the"
                                                + " request: pod %s/train: container main names ElasticGPUClaim "
                                                + "big-gpu, which does not"
                                                + " exist in namespace %s; create it or fix the annotation "
                                                + "elasticgpu.io/egpuc-main")
                                        .formatted(ns, ns));
                    });
            assertThat(client.pods().inNamespace(ns).withName("train").get()).isNull();
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    /** A claim's spec.tflopsPrecision reaches the pod as its precision annotation, beside the claim's requests. */
    @Test
    void aPodNamingAClaimOfTflopsInAPrecisionGetsThePrecisionAnnotation(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (AdmissionWebhook webhook = startWebhook(client)) {
            client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                    .create();
            ElasticGPUClaim claim = ElasticGPUClaim.of(
                    ns,
                    "fp32-10",
                    ns,
                    Map.of(
                            ResourceNames.GPU_TFLOPS, new Quantity("10"),
                            ResourceNames.GPU_MEMORY, new Quantity("1280")));
            claim.getSpec().setTflopsPrecision("fp32");
            client.resource(claim).create();

            Pod mutated = createdOnceTheApiserverCallsTheWebhook(client, ns, "fp32-10");
            assertThat(mutated.getMetadata().getAnnotations())
                    .containsEntry("elasticgpu.io/tflops-precision", "fp32")
                    .containsEntry("elasticgpu.io/egpuc-main", "fp32-10");
            assertThat(mutated.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getLimits())
                    .containsEntry(ResourceNames.GPU_TFLOPS, new Quantity("10"))
                    .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("1280"));
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    @Test
    void withTheWebhookDownPlainPodsAreStillCreatedAndClaimPodsAreRefused(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try {
            createClassAndClaim(client, ns, "slice");
            try (AdmissionWebhook webhook = startWebhook(client)) {
                createdOnceTheApiserverCallsTheWebhook(client, ns, "slice");
            }

            // matchConditions keep pods without a claim annotation away from the webhook …
            Pod plain =
                    client.pods().inNamespace(ns).resource(pod("plain", null)).create();
            assertThat(plain.getMetadata().getUid()).isNotBlank();
            // … and failurePolicy Fail keeps pods naming a claim out while it is down.
            assertThatThrownBy(() -> client.pods()
                            .inNamespace(ns)
                            .resource(pod("claimed", "slice"))
                            .create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(500);
                        assertThat(e.getMessage()).contains("failed calling webhook \"claims.elasticgpu.io\"");
                    });
            assertThat(client.pods().inNamespace(ns).withName("claimed").get()).isNull();
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    private static AdmissionWebhook startWebhook(KubernetesClient client) {
        return AdmissionWebhook.start(
                client,
                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                        .withCertificateLifetime(Duration.ofHours(1))
                        .build());
    }

    /** Creates a pod naming {@code claim} (a new name each try) until one comes back mutated. */
    private static Pod createdOnceTheApiserverCallsTheWebhook(KubernetesClient client, String ns, String claim) {
        return WebhookRollout.createOnceMutated(
                client,
                ns,
                n -> pod("trainer-" + PODS.incrementAndGet(), claim),
                WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                Duration.ofSeconds(30));
    }

    private static void createClassAndClaim(KubernetesClient client, String ns, String claimName) {
        client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                .create();
        client.resource(ElasticGPUClaim.of(ns, claimName, ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();
    }

    /** A pod with one container {@code main}, annotated with {@code claim} unless it is null. */
    private static Pod pod(String name, String claim) {
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .endContainer()
                .endSpec();
        if (claim != null) {
            pod.editMetadata()
                    .addToAnnotations("elasticgpu.io/egpuc-main", claim)
                    .endMetadata();
        }
        return pod.build();
    }

    @Test
    void withMpsAPodAskingAShareMpsCannotDivideIsRefusedAndTheOthersAreCreated(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (AdmissionWebhook webhook = AdmissionWebhook.start(
                client,
                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                        .withCertificateLifetime(Duration.ofHours(1))
                        .withShares(new ShareAdmission(ShareAdmission.Isolation.MPS, PodAsks.Units.DEFAULT))
                        .build())) {
            // 10 milli / 10 / 2 processes = 0.5 %: refused, once the apiserver calls the new configuration.
            String refused = refusedOnceTheApiserverCallsTheWebhook(client, ns);
            assertThat(refused)
                    .contains(
                            "admission webhook \"shares.elasticgpu.io\" denied the request: pod %s/thin-".formatted(ns))
                    .contains(": container main asks a GPU slice that CUDA MPS cannot hold (this cluster"
                            + " holds slices to their shares with MPS): a compute share of 1 % cannot be divided "
                            + "among 2"
                            + " processes (MPS limits each process to whole percent); ask for at least 2 % or lower"
                            + " elasticgpu.io/gpu-processes");

            // 300 / 10 / 2 = 15 % each: created as it was written.
            Pod created = client.pods()
                    .inNamespace(ns)
                    .resource(slicePod("wide", "30", "2"))
                    .create();
            assertThat(created.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getLimits())
                    .containsEntry(ResourceNames.GPU_CORE, new Quantity("30"));
            // Whole cards never go through MPS, and a pod asking no GPU is not even sent.
            client.pods()
                    .inNamespace(ns)
                    .resource(new PodBuilder(slicePod("whole", "30", "48"))
                            .editSpec()
                            .editFirstContainer()
                            .editResources()
                            .withLimits(Map.of(ResourceNames.GPU, new Quantity("1")))
                            .endResources()
                            .endContainer()
                            .endSpec()
                            .build())
                    .create();
            client.pods().inNamespace(ns).resource(pod("plain-mps", null)).create();
            // A bad process count is refused on a slice whatever the isolation.
            assertThatThrownBy(() -> client.pods()
                            .inNamespace(ns)
                            .resource(slicePod("zero", "30", "0"))
                            .create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(400);
                        assertThat(e.getMessage())
                                .contains(("pod %s/zero: annotation elasticgpu.io/gpu-processes must"
                                                + " be a whole number 1..48 (how many CUDA processes share the GPU "
                                                + "share), was \"0\"")
                                        .formatted(ns));
                    });
        }
        // failurePolicy Ignore: with the webhook down the node agent is left to refuse it.
        Pod admitted = client.pods()
                .inNamespace(ns)
                .resource(slicePod("thin-down", "1", "2"))
                .create();
        assertThat(admitted.getMetadata().getUid()).isNotBlank();
    }

    /** Creates pods asking 1 % among 2 processes (a new name each try) until the webhook refuses one; its message. */
    private static String refusedOnceTheApiserverCallsTheWebhook(KubernetesClient client, String ns) {
        AtomicInteger tries = new AtomicInteger();
        return org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(300))
                .until(
                        () -> {
                            String name = "thin-" + tries.incrementAndGet();
                            try {
                                Pod created = client.pods()
                                        .inNamespace(ns)
                                        .resource(slicePod(name, "1", "2"))
                                        .create();
                                client.pods()
                                        .inNamespace(ns)
                                        .resource(created)
                                        .withGracePeriod(0)
                                        .delete();
                                return null;
                            } catch (KubernetesClientException e) {
                                assertThat(e.getCode()).isEqualTo(400);
                                return e.getMessage();
                            }
                        },
                        message -> message != null);
    }

    /** A pod whose container main asks {@code core} % of a card and 4096 MiB, run by {@code processes} processes. */
    private static Pod slicePod(String name, String core, String processes) {
        return new PodBuilder(pod(name, null))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/gpu-processes", processes)
                .endMetadata()
                .editSpec()
                .editFirstContainer()
                .withNewResources()
                .addToLimits(ResourceNames.GPU_CORE, new Quantity(core))
                .addToLimits(ResourceNames.GPU_MEMORY, new Quantity("4096"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }
}
