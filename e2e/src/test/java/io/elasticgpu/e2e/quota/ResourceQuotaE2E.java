package io.elasticgpu.e2e.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A namespace held to a GPU budget by a plain Kubernetes {@code ResourceQuota} on Elastic GPU's extended resources
 * ({@code requests.elasticgpu.io/gpu-memory}, {@code -core}, {@code gpu}, {@code gpu-tflops}: the apiserver quotas
 * extended resources only by their requests), on the real kube-apiserver and kube-controller-manager (the quota's
 * status), with the admission webhook in-process as {@code WebhookE2E} runs it. Pods within the budget are created,
 * the one beyond it is refused with the apiserver's own quota message, and a pod asking through an ElasticGPUClaim is
 * counted with the resources the webhook gave it: the quota's admission plugin runs in the validating phase, after
 * every mutating webhook, so a claim pod, which asks nothing as written, is counted and refused like any other.
 */
@ExtendWith(ControlPlaneExtension.class)
class ResourceQuotaE2E {

    private static final String QUOTA = "gpu-budget";
    private static final String MEMORY = "requests." + ResourceNames.GPU_MEMORY;
    private static final String CORE = "requests." + ResourceNames.GPU_CORE;
    private static final String CARDS = "requests." + ResourceNames.GPU;
    private static final String TFLOPS = "requests." + ResourceNames.GPU_TFLOPS;
    private static final String NVIDIA = "requests." + ResourceNames.NVIDIA_GPU;
    private static final String BY_LIMITS = "by-limits";
    private static final String LIMITS = "limits." + ResourceNames.GPU_MEMORY;
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final AtomicInteger PODS = new AtomicInteger();

    @BeforeAll
    static void applyTheCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    /** The webhook's configuration outlives the webhook on purpose; other tests of the run must not meet it. */
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
    void aQuotaOnMemoryCoresAndCardsHoldsTheNamespaceCountingPodsThatAskThroughAClaim(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (AdmissionWebhook webhook = startWebhook(client)) {
            client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                    .create();
            client.resource(ElasticGPUClaim.of(
                            ns,
                            "slice",
                            ns,
                            Map.of(
                                    ResourceNames.GPU_MEMORY, new Quantity("4096"),
                                    ResourceNames.GPU_CORE, new Quantity("30"))))
                    .create();
            // Extended resources are held by their requests only: a quota on their limits is accepted, and counts
            // nothing (checked at the end).
            client.resourceQuotas()
                    .inNamespace(ns)
                    .resource(new ResourceQuotaBuilder()
                            .withNewMetadata()
                            .withName(BY_LIMITS)
                            .endMetadata()
                            .withNewSpec()
                            .addToHard(LIMITS, new Quantity("1"))
                            .endSpec()
                            .build())
                    .create();
            await().atMost(WAIT).until(() -> {
                ResourceQuota q = client.resourceQuotas()
                        .inNamespace(ns)
                        .withName(BY_LIMITS)
                        .get();
                return q.getStatus() != null && q.getStatus().getHard() != null;
            });
            createQuota(client, ns, Map.of(MEMORY, "10240", CORE, "100", CARDS, "1"));

            // A pod naming the claim asks nothing as written: the quota counts what the webhook gave it.
            Pod claimed = WebhookRollout.createOnceMutated(
                    client,
                    ns,
                    n -> claimPod("claimed-" + PODS.incrementAndGet(), "slice"),
                    WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                    Duration.ofSeconds(30));
            assertThat(claimed.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getRequests())
                    .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"))
                    .containsEntry(ResourceNames.GPU_CORE, new Quantity("30"));
            assertThat(used(client, ns)).containsEntry(MEMORY, "4096").containsEntry(CORE, "30");

            // A pod asking directly (limits only: the apiserver defaults its requests to them).
            create(
                    client,
                    ns,
                    slicePod("direct", Map.of(ResourceNames.GPU_MEMORY, "4096", ResourceNames.GPU_CORE, "30")));
            // A pod asking no GPU is not held by a quota on GPU resources alone.
            create(client, ns, slicePod("cpu-only", Map.of()));
            assertThat(used(client, ns)).containsEntry(MEMORY, "8192").containsEntry(CORE, "60");

            // A second claim pod would hold 12288 of 10240: refused by the quota, after the webhook gave it 4096.
            assertThat(refused(client, ns, claimPod("claimed-over", "slice")))
                    .contains(("pods \"claimed-over\" is forbidden: exceeded quota: %s, requested: %s=4096, used:"
                                    + " %s=8192, limited: %s=10240")
                            .formatted(QUOTA, MEMORY, MEMORY, MEMORY));
            // Cores: 60 + 50 > 100.
            assertThat(refused(
                            client,
                            ns,
                            slicePod(
                                    "core-over",
                                    Map.of(ResourceNames.GPU_MEMORY, "1024", ResourceNames.GPU_CORE, "50"))))
                    .contains(("exceeded quota: %s, requested: %s=50, used: %s=60, limited: %s=100")
                            .formatted(QUOTA, CORE, CORE, CORE));
            create(
                    client,
                    ns,
                    slicePod("core-fits", Map.of(ResourceNames.GPU_MEMORY, "1024", ResourceNames.GPU_CORE, "40")));
            assertThat(used(client, ns)).containsEntry(MEMORY, "9216").containsEntry(CORE, "100");

            // Whole cards: one, then none left.
            create(client, ns, slicePod("card", Map.of(ResourceNames.GPU, "1")));
            assertThat(refused(client, ns, slicePod("card-over", Map.of(ResourceNames.GPU, "1"))))
                    .contains(("exceeded quota: %s, requested: %s=1, used: %s=1, limited: %s=1")
                            .formatted(QUOTA, CARDS, CARDS, CARDS));

            // A pod deleted gives its share of the budget back (kube-controller-manager recounts): the claim pod
            // refused before now fits.
            client.pods().inNamespace(ns).withName("direct").withGracePeriod(0).delete();
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> used(client, ns).get(MEMORY).equals("5120"));
            Pod admitted = create(client, ns, claimPod("claimed-again", "slice"));
            assertThat(admitted.getSpec()
                            .getContainers()
                            .getFirst()
                            .getResources()
                            .getRequests())
                    .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"));
            assertThat(used(client, ns)).containsEntry(MEMORY, "9216").containsEntry(CORE, "100");
            ResourceQuota byLimits =
                    client.resourceQuotas().inNamespace(ns).withName(BY_LIMITS).get();
            assertThat(
                            byLimits.getStatus().getUsed() == null
                                    ? null
                                    : byLimits.getStatus().getUsed().get(LIMITS))
                    .as("a quota on limits of an extended resource held none of the 9216 asked")
                    .satisfiesAnyOf(
                            q -> assertThat(q).isNull(), q -> assertThat(q).isEqualTo(new Quantity("0")));
        } finally {
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    /**
     * Compute asked in TFLOPS is an extended resource of the pod like the others ({@code elasticgpu.io/gpu-tflops},
     * which kube-scheduler ignores and the extender turns into a share of the card it picks), so a quota on its
     * requests holds it, claims included; a quota of 0 cores keeps the namespace from asking compute in percent
     * instead, which the TFLOPS budget would not see.
     */
    @Test
    void aQuotaInTflopsHoldsPodsAskingTflopsAndZeroCoresKeepsPercentOut(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (AdmissionWebhook webhook = startWebhook(client)) {
            client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                    .create();
            ElasticGPUClaim claim = ElasticGPUClaim.of(
                    ns,
                    "fp16-20",
                    ns,
                    Map.of(
                            ResourceNames.GPU_TFLOPS, new Quantity("20"),
                            ResourceNames.GPU_MEMORY, new Quantity("1280")));
            claim.getSpec().setTflopsPrecision("fp16");
            client.resource(claim).create();
            createQuota(client, ns, Map.of(TFLOPS, "30", CORE, "0", CARDS, "0", NVIDIA, "0"));

            WebhookRollout.createOnceMutated(
                    client,
                    ns,
                    n -> claimPod("tflops-claimed-" + PODS.incrementAndGet(), "fp16-20"),
                    WebhookRollout.hasLimit(ResourceNames.GPU_TFLOPS),
                    Duration.ofSeconds(30));
            assertThat(used(client, ns)).containsEntry(TFLOPS, "20");
            create(
                    client,
                    ns,
                    slicePod(
                            "tflops-direct", Map.of(ResourceNames.GPU_TFLOPS, "10", ResourceNames.GPU_MEMORY, "1280")));
            assertThat(used(client, ns)).containsEntry(TFLOPS, "30");

            assertThat(refused(
                            client,
                            ns,
                            slicePod(
                                    "tflops-over",
                                    Map.of(ResourceNames.GPU_TFLOPS, "5", ResourceNames.GPU_MEMORY, "1280"))))
                    .contains(("exceeded quota: %s, requested: %s=5, used: %s=30, limited: %s=30")
                            .formatted(QUOTA, TFLOPS, TFLOPS, TFLOPS));
            assertThat(refused(
                            client,
                            ns,
                            slicePod(
                                    "percent", Map.of(ResourceNames.GPU_CORE, "10", ResourceNames.GPU_MEMORY, "1280"))))
                    .contains(("exceeded quota: %s, requested: %s=10, used: %s=0, limited: %s=0")
                            .formatted(QUOTA, CORE, CORE, CORE));
            assertThat(refused(client, ns, slicePod("whole", Map.of(ResourceNames.GPU, "1"))))
                    .contains(("exceeded quota: %s, requested: %s=1, used: %s=0, limited: %s=0")
                            .formatted(QUOTA, CARDS, CARDS, CARDS));
            // Other projects' names reach the same cards: a quota of 0 keeps them out too.
            assertThat(refused(client, ns, slicePod("nvidia", Map.of(ResourceNames.NVIDIA_GPU, "1"))))
                    .contains(("exceeded quota: %s, requested: %s=1, used: %s=0, limited: %s=0")
                            .formatted(QUOTA, NVIDIA, NVIDIA, NVIDIA));
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

    /**
     * Creates the quota {@value #QUOTA} and waits for kube-controller-manager to fill its status: until then the
     * apiserver refuses every pod the quota would count ("status unknown for quota").
     */
    private static void createQuota(KubernetesClient client, String ns, Map<String, String> hard) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        hard.forEach((k, v) -> quantities.put(k, new Quantity(v)));
        client.resourceQuotas()
                .inNamespace(ns)
                .resource(new ResourceQuotaBuilder()
                        .withNewMetadata()
                        .withName(QUOTA)
                        .endMetadata()
                        .withNewSpec()
                        .withHard(quantities)
                        .endSpec()
                        .build())
                .create();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            ResourceQuota q =
                    client.resourceQuotas().inNamespace(ns).withName(QUOTA).get();
            return q.getStatus() != null
                    && q.getStatus().getHard() != null
                    && q.getStatus().getHard().keySet().containsAll(hard.keySet())
                    && q.getStatus().getUsed() != null
                    && q.getStatus().getUsed().keySet().containsAll(hard.keySet());
        });
    }

    /** The quota's {@code status.used}, as the apiserver's admission left it after the last pod it admitted. */
    private static Map<String, String> used(KubernetesClient client, String ns) {
        Map<String, String> used = new TreeMap<>();
        client.resourceQuotas()
                .inNamespace(ns)
                .withName(QUOTA)
                .get()
                .getStatus()
                .getUsed()
                .forEach((k, v) -> used.put(k, v.toString()));
        return used;
    }

    private static Pod create(KubernetesClient client, String ns, Pod pod) {
        return client.pods().inNamespace(ns).resource(pod).create();
    }

    /** The apiserver's message refusing {@code pod} (403), which must not be created. */
    private static String refused(KubernetesClient client, String ns, Pod pod) {
        String name = pod.getMetadata().getName();
        String[] message = new String[1];
        assertThatThrownBy(() -> create(client, ns, pod)).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).as(e.getMessage()).isEqualTo(403);
            message[0] = e.getMessage();
        });
        assertThat(client.pods().inNamespace(ns).withName(name).get()).isNull();
        return message[0];
    }

    /** A pod whose one container {@code main} names ElasticGPUClaim {@code claim} and asks nothing itself. */
    private static Pod claimPod(String name, String claim) {
        return new PodBuilder(slicePod(name, Map.of()))
                .editMetadata()
                .addToAnnotations("elasticgpu.io/egpuc-main", claim)
                .endMetadata()
                .build();
    }

    /** A pod whose one container {@code main} has {@code limits} (resource name to quantity), no requests. */
    private static Pod slicePod(String name, Map<String, String> limits) {
        Map<String, Quantity> quantities = new TreeMap<>();
        limits.forEach((k, v) -> quantities.put(k, new Quantity(v)));
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withLimits(quantities)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }
}
