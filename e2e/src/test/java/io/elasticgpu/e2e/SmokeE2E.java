package io.elasticgpu.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The harness's own proof: the real apiserver and kube-scheduler do what the later e2e tests rely on. */
@ExtendWith(ControlPlaneExtension.class)
class SmokeE2E {

    static Pod pod(String name, String resource, String amount) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits(resource, new Quantity(amount))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    @Test
    void aMemorySlicePodIsBoundByTheRealSchedulerToAGpuNodeAndRuns(TestCluster cluster) {
        List<String> nodes = cluster.createGpuNodes(List.of(GpuNodeSpec.of("t4", 2, "Tesla-T4", 15_360)));
        var pods = cluster.client().pods().inNamespace(cluster.namespace());
        pods.resource(pod("slice", ResourceNames.GPU_MEMORY, "8192")).create();

        Pod running = pods.withName("slice")
                .waitUntilCondition(
                        p -> p != null && "Running".equals(p.getStatus().getPhase()), 60, TimeUnit.SECONDS);

        assertThat(running.getSpec().getNodeName()).isIn(nodes.toArray());
    }

    @Test
    void aPodAskingMoreThanAnyNodeHasStaysPendingWithAFailedSchedulingEvent(TestCluster cluster) {
        cluster.createGpuNodes(List.of(GpuNodeSpec.of("small", 1, "Tesla-T4", 15_360)));
        var pods = cluster.client().pods().inNamespace(cluster.namespace());
        pods.resource(pod("huge", ResourceNames.GPU_MEMORY, "100000000")).create();

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(cluster.client()
                                .v1()
                                .events()
                                .inNamespace(cluster.namespace())
                                .list()
                                .getItems())
                        .anySatisfy(e -> {
                            assertThat(e.getReason()).isEqualTo("FailedScheduling");
                            assertThat(e.getInvolvedObject().getName()).isEqualTo("huge");
                            assertThat(e.getMessage()).contains("Insufficient " + ResourceNames.GPU_MEMORY);
                        }));
        Pod pending = pods.withName("huge").get();
        assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
        assertThat(pending.getSpec().getNodeName()).isNull();
    }

    @Test
    void theApiserverValidatesCustomResourcesAgainstTheirOpenApiSchema(TestCluster cluster) {
        String group = cluster.namespace() + ".e2e.elasticgpu.io";
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName("widgets." + group)
                .endMetadata()
                .withNewSpec()
                .withGroup(group)
                .withScope("Namespaced")
                .withNewNames()
                .withPlural("widgets")
                .withSingular("widget")
                .withKind("Widget")
                .endNames()
                .addNewVersion()
                .withName("v1")
                .withServed(true)
                .withStorage(true)
                .withNewSchema()
                .withOpenAPIV3Schema(new JSONSchemaPropsBuilder()
                        .withType("object")
                        .addToProperties(
                                "spec",
                                new JSONSchemaPropsBuilder()
                                        .withType("object")
                                        .addToRequired("size")
                                        .addToProperties(
                                                "size",
                                                new JSONSchemaPropsBuilder()
                                                        .withType("integer")
                                                        .withMinimum(1.0)
                                                        .build())
                                        .build())
                        .build())
                .endSchema()
                .endVersion()
                .endSpec()
                .build();
        var crds = cluster.client().apiextensions().v1().customResourceDefinitions();
        crds.resource(crd).create();
        try {
            crds.withName(crd.getMetadata().getName())
                    .waitUntilCondition(ElasticGPUCrds::established, 30, TimeUnit.SECONDS);
            var widgets = cluster.client()
                    .genericKubernetesResources(group + "/v1", "Widget")
                    .inNamespace(cluster.namespace());

            // The CRD's discovery can lag its Established condition by a moment.
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(widgets.resource(widget(group, "good", 3))
                                    .create()
                                    .getMetadata()
                                    .getUid())
                            .isNotEmpty());
            assertThatThrownBy(() -> widgets.resource(widget(group, "bad", 0)).create())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                        assertThat(e.getCode()).isEqualTo(422);
                        assertThat(e.getMessage())
                                .contains("spec.size")
                                .contains("should be greater than or equal to 1");
                    });
        } finally {
            crds.withName(crd.getMetadata().getName()).delete();
        }
    }

    private static GenericKubernetesResource widget(String group, String name, int size) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(group + "/v1")
                .withKind("Widget")
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("size", size)))
                .build();
    }
}
