package io.elasticgpu.e2e.controller;

import static io.elasticgpu.localcluster.nodes.AllocatedPods.uuid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUSource;
import io.elasticgpu.api.v1alpha1.ElasticGPUSpec;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.provisioning.ElasticGPUNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.AllocatedPods;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The controller against a real kube-apiserver that keeps refusing one of its writes (a ValidatingAdmissionPolicy
 * that denies the ElasticGPU of one pod): every other ElasticGPU is made and every claim's status written all the
 * same, and the refused one is made once the API server lets it.
 */
@ExtendWith(ControlPlaneExtension.class)
class RefusedWriteE2E {

    private static final Duration WAIT = Duration.ofSeconds(45);

    @BeforeAll
    static void applyTheGeneratedCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    @Test
    void anElasticGpuTheApiServerKeepsRefusingHoldsBackNoClaimAndIsMadeOnceItIsLet(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 2, "Tesla-T4", 15_360)))
                .getFirst();
        List<HasMetadata> policy = client.load(
                        new java.io.ByteArrayInputStream(policy(ns).getBytes()))
                .items();
        try (ElasticGPUController controller = new ElasticGPUController(client, Duration.ofSeconds(10))) {
            policy.forEach(p -> client.resource(p).create());
            awaitRefused(client, ns, node);

            client.resource(ElasticGPUClass.of(
                            ns, ElasticGPUClassSpec.Provisioner.GPU_SHARE, ElasticGPUClassSpec.ReclaimPolicy.Delete))
                    .create();
            client.resource(ElasticGPUClaim.of(
                            ns, "notebook", ns, Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                    .create();
            Pod blocked =
                    AllocatedPods.create(client, ns, "blocked", node, Map.of("main", List.of(share(node, 0))), null);
            Pod nb = AllocatedPods.create(client, ns, "nb", node, Map.of("main", List.of(share(node, 1))), "notebook");
            String blockedGpu =
                    ElasticGPUNames.of(node, 0, blocked.getMetadata().getUid(), "main");
            String nbGpu = ElasticGPUNames.of(node, 1, nb.getMetadata().getUid(), "main");
            controller.start();

            await().atMost(WAIT).untilAsserted(() -> {
                ElasticGPUClaim claim = client.resources(ElasticGPUClaim.class)
                        .inNamespace(ns)
                        .withName("notebook")
                        .get();
                assertThat(claim.getStatus())
                        .as("the claim's status, written although another ElasticGPU was refused")
                        .isNotNull();
                assertThat(claim.getStatus().getPhase()).isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
                assertThat(claim.getStatus().getElasticGPUName()).isEqualTo(nbGpu);
                assertThat(gpu(client, nbGpu)).as("nb's ElasticGPU").isNotNull();
            });
            assertThat(gpu(client, blockedGpu))
                    .as("the refused ElasticGPU is not there while the policy stands")
                    .isNull();

            policy.forEach(p -> client.resource(p).delete());
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(gpu(client, blockedGpu))
                            .as("made by a later sync once the API server lets it")
                            .isNotNull());
        } finally {
            policy.forEach(p -> client.resource(p).delete());
            client.resources(ElasticGPU.class).list().getItems().stream()
                    .filter(g -> node.equals(g.getSpec().getNodeName()))
                    .forEach(g -> client.resource(g).delete());
            client.resources(ElasticGPUClass.class).withName(ns).delete();
        }
    }

    private static Share share(String node, int card) {
        return new Share(card, uuid(node, card), 500, 4096);
    }

    private static ElasticGPU gpu(KubernetesClient client, String name) {
        return client.resources(ElasticGPU.class).withName(name).get();
    }

    /** A policy takes effect a moment after it is made: until a dry-run create of a refused ElasticGPU fails. */
    private static void awaitRefused(KubernetesClient client, String ns, String node) {
        ElasticGPUSpec spec = new ElasticGPUSpec();
        spec.setNodeName(node);
        ElasticGPUSpec.PodReference ref = new ElasticGPUSpec.PodReference();
        ref.setNamespace(ns);
        ref.setName("blocked");
        spec.setPodRef(ref);
        spec.setCapacity(Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096")));
        ElasticGPUSource.Card card = new ElasticGPUSource.Card();
        card.setNodeName(node);
        card.setIndex(0);
        spec.setSource(new ElasticGPUSource());
        spec.getSource().setGpuShare(card);
        ElasticGPU probe = new ElasticGPU();
        probe.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(ns + "-probe")
                .build());
        probe.setSpec(spec);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThatThrownBy(
                                () -> client.resource(probe).dryRun().create())
                        .isInstanceOf(KubernetesClientException.class)
                        .hasMessageContaining("refused by RefusedWriteE2E"));
    }

    private static String policy(String ns) {
        return """
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicy
                metadata:
                  name: %1$s-refuse
                spec:
                  failurePolicy: Fail
                  matchConstraints:
                    resourceRules:
                    - apiGroups: ["elasticgpu.io"]
                      apiVersions: ["*"]
                      operations: ["CREATE"]
                      resources: ["elasticgpus"]
                  validations:
                  - expression: >-
                      !has(object.spec.podRef) || object.spec.podRef.name != 'blocked'
                      || object.spec.podRef.namespace != '%1$s'
                    message: refused by RefusedWriteE2E
                ---
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingAdmissionPolicyBinding
                metadata:
                  name: %1$s-refuse
                spec:
                  policyName: %1$s-refuse
                  validationActions: [Deny]
                """.formatted(ns);
    }
}
