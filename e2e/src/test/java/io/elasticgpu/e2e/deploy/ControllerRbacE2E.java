package io.elasticgpu.e2e.deploy;

import static io.elasticgpu.localcluster.nodes.AllocatedPods.uuid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.ElasticGPUNames;
import io.elasticgpu.controller.provisioning.Leadership;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.AllocatedPods;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller's RBAC is what it uses, no more, and with it the leader keeps its Lease: the chart's
 * RBAC is applied to the real apiserver, {@code egpu controller} runs with a token of the chart's ServiceAccount
 * (leader election and the webhook on, as the chart runs it) through a life that touches its paths (a pod admitted
 * with its claim's resources, the ResourceClaimTemplate of a claim of a DRA class, an ElasticGPU made for an
 * allocation, put back after a hand edit, removed with its
 * pod; the leader SIGKILLed and a garbled CA Secret replaced by the replica that takes the Lease over), then keeps
 * the Lease for several lease durations; the audit log says what it called. Found by this test: fabric8 renews a Lease
 * with a JSON merge patch, and the chart granted only update, so in a cluster every renewal was refused: the
 * Lease was never renewed and no other replica could take it over.
 */
@ExtendWith(ControlPlaneExtension.class)
class ControllerRbacE2E {

    private static final String NS = ControlPlane.AUDITED_NAMESPACE;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @BeforeAll
    static void applyTheCrds(ControlPlane cp) {
        ElasticGPUCrds.apply(cp);
    }

    @Test
    void everyVerbGrantedToTheControllerIsUsedAndTheLeaderKeepsItsLease(TestCluster cluster) throws Exception {
        ChartRbac.Installed rbac = ChartRbac.install(cluster, "controller", "elastic-gpu-controller-leader-election");
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 2, "A100", 40_960)))
                .getFirst();
        client.resource(ElasticGPUClass.of(
                        ns, ElasticGPUClassSpec.Provisioner.QGPU, ElasticGPUClassSpec.ReclaimPolicy.Delete))
                .create();
        client.resource(ElasticGPUClaim.of(ns, "slice", ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();
        ElasticGPUClass dra = ElasticGPUClass.of(
                ns + "-dra", ElasticGPUClassSpec.Provisioner.QGPU, ElasticGPUClassSpec.ReclaimPolicy.Delete);
        dra.getSpec().setApi(ElasticGPUClassSpec.Api.DRA);
        client.resource(dra).create();
        client.resource(ElasticGPUClaim.of(
                        ns, "dra-slice", ns + "-dra", Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();

        Path kubeconfig = rbac.kubeconfig();
        client.secrets().inNamespace(NS).withName(WebhookConfig.CA_SECRET_NAME).delete();
        client.admissionRegistration()
                .v1()
                .mutatingWebhookConfigurations()
                .withName(WebhookConfig.CONFIGURATION_NAME)
                .delete();
        EgpuProcess first = start(cluster, kubeconfig, "first");
        EgpuProcess second = null;
        try {
            awaitLeader(client, first);
            await().atMost(WAIT)
                    .until(() -> client.resources(ResourceClaimTemplate.class)
                                    .inNamespace(ns)
                                    .withName(DraNames.claimTemplate("dra-slice"))
                                    .get()
                            != null);
            WebhookRollout.createOnceMutated(
                    client,
                    ns,
                    n -> claimingPod("admitted-" + n),
                    WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                    WAIT);
            Pod pod = AllocatedPods.create(
                    client, ns, "held", node, Map.of("main", List.of(new Share(1, uuid(node, 1), 300, 4096))), null);
            String gpu = ElasticGPUNames.of(node, 1, pod.getMetadata().getUid(), "main");
            await().atMost(WAIT)
                    .until(() -> elasticGpu(client, gpu) != null
                            && elasticGpu(client, gpu).getStatus() != null);
            client.resources(ElasticGPU.class).withName(gpu).edit(g -> {
                g.getSpec().setNodeName("elsewhere");
                return g;
            });
            await().atMost(WAIT)
                    .until(() -> node.equals(elasticGpu(client, gpu).getSpec().getNodeName()));
            client.pods().inNamespace(ns).withName("held").withGracePeriod(0).delete();
            await().atMost(WAIT).until(() -> elasticGpu(client, gpu) == null);

            // The leader dies holding the Lease, and the CA Secret is garbled meanwhile: the next replica replaces
            // the Secret, takes the Lease over once it expires, and keeps it.
            first.kill();
            client.secrets()
                    .inNamespace(NS)
                    .withName(WebhookConfig.CA_SECRET_NAME)
                    .edit(sec -> {
                        sec.setData(Map.of("ca.crt", "Z2FyYmxlZA==", "ca.key", "Z2FyYmxlZA=="));
                        return sec;
                    });
            EgpuProcess next = second = start(cluster, kubeconfig, "second");
            LeaseSpec elected = awaitLeader(client, next);
            assertThat(client.secrets()
                            .inNamespace(NS)
                            .withName(WebhookConfig.CA_SECRET_NAME)
                            .get()
                            .getData()
                            .get("ca.crt"))
                    .as("the garbled CA replaced")
                    .isNotEqualTo("Z2FyYmxlZA==");
            Duration lease = Duration.ofSeconds(elected.getLeaseDurationSeconds());
            await().pollDelay(lease.multipliedBy(3))
                    .atMost(lease.multipliedBy(5))
                    .untilAsserted(() -> {
                        LeaseSpec now = lease(client);
                        assertThat(next.process().alive())
                                .as("the leader is still running")
                                .isTrue();
                        assertThat(now.getHolderIdentity()).isEqualTo(elected.getHolderIdentity());
                        assertThat(now.getAcquireTime()).as("elected once").isEqualTo(elected.getAcquireTime());
                        assertThat(now.getRenewTime())
                                .as("renewed within a lease duration")
                                .isAfter(ZonedDateTime.now().minus(lease));
                    });
        } finally {
            first.close();
            if (second != null) {
                second.close(); // SIGTERM: releases the Lease
            }
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
            client.resources(ElasticGPUClass.class).withName(ns).delete();
            client.resources(ElasticGPUClass.class).withName(ns + "-dra").delete();
        }
        ChartRbac.assertLeastPrivilege(
                "controller", rbac.grants(), ChartRbac.calls(cluster.controlPlane(), rbac.account()));
    }

    /** Waits until {@code replica} holds the Lease (its identity is HOSTNAME-pid-random). */
    private static LeaseSpec awaitLeader(KubernetesClient client, EgpuProcess replica) {
        return await().atMost(WAIT.multipliedBy(2))
                .until(
                        () -> lease(client),
                        l -> l != null
                                && l.getHolderIdentity() != null
                                && l.getHolderIdentity()
                                        .contains("-" + replica.process().pid() + "-"));
    }

    private static EgpuProcess start(TestCluster cluster, Path kubeconfig, String name) {
        int webhook = Ports.free();
        ControlPlane cp = cluster.controlPlane();
        return EgpuProcess.start(
                "controller",
                List.of(
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--namespace-for-lease",
                        NS,
                        "--webhook-listen",
                        "127.0.0.1:" + webhook,
                        "--webhook-url",
                        "127.0.0.1:" + webhook),
                cp.workDir().resolve("logs").resolve("controller-rbac-" + name + ".log"));
    }

    private static LeaseSpec lease(KubernetesClient client) {
        var lease =
                client.leases().inNamespace(NS).withName(Leadership.LEASE_NAME).get();
        return lease == null ? null : lease.getSpec();
    }

    private static ElasticGPU elasticGpu(KubernetesClient client, String name) {
        return client.resources(ElasticGPU.class).withName(name).get();
    }

    private static Pod claimingPod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations("elasticgpu.io/egpuc-main", "slice")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .endContainer()
                .endSpec()
                .build();
    }
}
