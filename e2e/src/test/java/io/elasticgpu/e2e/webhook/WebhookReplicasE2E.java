package io.elasticgpu.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.Leadership;
import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.TcpBalancer;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 13, defect 5: two {@code egpu controller} processes serve the webhook behind one address (a TCP balancer
 * standing in for the Service); the leader is SIGKILLed in the middle of a stream of pod creations, and every pod
 * is still admitted with its claim's resources. Before, only the leader served (its CA lived in its memory), so the
 * stream failed until a new leader re-registered a new CA.
 */
@ExtendWith(ControlPlaneExtension.class)
class WebhookReplicasE2E {

    private static final int PODS = 120;
    private static ControlPlane controlPlane;

    @BeforeAll
    static void applyTheCrds(ControlPlane cp) {
        controlPlane = cp;
        ElasticGPUCrds.apply(cp);
    }

    @AfterAll
    static void removeTheConfiguration() {
        try (KubernetesClient client = controlPlane.newClient()) {
            client.admissionRegistration()
                    .v1()
                    .mutatingWebhookConfigurations()
                    .withName(WebhookConfig.CONFIGURATION_NAME)
                    .delete();
        }
    }

    @Test
    void killingTheLeaderMidStreamLosesNoAdmission(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        client.resource(ElasticGPUClass.of(ns, ElasticGPUClassSpec.Provisioner.QGPU, null))
                .create();
        client.resource(ElasticGPUClaim.of(ns, "slice", ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();
        int[] webhookPorts = {Ports.free(), Ports.free()};
        List<EgpuProcess> replicas = new ArrayList<>();
        try (TcpBalancer balancer = new TcpBalancer(List.of(webhookPorts[0], webhookPorts[1]))) {
            // The first replica leads and is the one the balancer sends everything to, until it dies.
            replicas.add(controller(ns, webhookPorts[0], balancer.port()));
            EgpuProcess leader =
                    await().atMost(Duration.ofSeconds(60)).until(() -> leader(client, ns, replicas), l -> l != null);
            replicas.add(controller(ns, webhookPorts[1], balancer.port()));
            WebhookRollout.createOnceMutated(
                    client,
                    ns,
                    n -> pod("warmup-" + n),
                    WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY),
                    Duration.ofSeconds(60));

            List<String> failures = new ArrayList<>();
            int admitted = 0;
            for (int i = 0; i < PODS; i++) {
                if (i == PODS / 3) {
                    Thread.ofVirtual().start(leader::kill); // while the next creations are under way
                }
                try {
                    Pod created =
                            client.pods().inNamespace(ns).resource(pod("p" + i)).create();
                    if (WebhookRollout.hasLimit(ResourceNames.GPU_MEMORY).test(created)) {
                        admitted++;
                    } else {
                        failures.add("p" + i + " admitted without its claim's resources");
                    }
                } catch (RuntimeException e) {
                    failures.add("p" + i + ": " + e.getMessage());
                }
            }
            assertThat(leader.process().alive()).as("the leader was killed").isFalse();
            assertThat(balancer.connections(0))
                    .as("admissions the leader served")
                    .isPositive();
            assertThat(balancer.connections(1))
                    .as("admissions the follower served after the kill")
                    .isPositive();
            assertThat(failures).as("admissions lost or wrong").isEmpty();
            assertThat(admitted).isEqualTo(PODS);
            assertThat(client.secrets()
                            .inNamespace(ns)
                            .withName(WebhookConfig.CA_SECRET_NAME)
                            .get())
                    .as("the CA the replicas share")
                    .isNotNull();
        } finally {
            replicas.forEach(EgpuProcess::close);
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    private static EgpuProcess controller(String ns, int webhookPort, int balancerPort) {
        return EgpuProcess.start(
                "controller",
                List.of(
                        "--kubeconfig",
                        controlPlane.kubeconfig().toString(),
                        "--namespace-for-lease",
                        ns,
                        "--webhook-listen",
                        "127.0.0.1:" + webhookPort,
                        "--webhook-url",
                        "127.0.0.1:" + balancerPort),
                controlPlane.workDir().resolve("logs").resolve("controller-" + webhookPort + ".log"));
    }

    /** The replica whose pid is in the Lease's holder (identity HOSTNAME-pid-random), once there is one. */
    private static EgpuProcess leader(KubernetesClient client, String ns, List<EgpuProcess> replicas) {
        Lease lease =
                client.leases().inNamespace(ns).withName(Leadership.LEASE_NAME).get();
        String holder = lease == null || lease.getSpec() == null
                ? null
                : lease.getSpec().getHolderIdentity();
        return holder == null
                ? null
                : replicas.stream()
                        .filter(r -> holder.contains("-" + r.process().pid() + "-"))
                        .findFirst()
                        .orElse(null);
    }

    private static Pod pod(String name) {
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
