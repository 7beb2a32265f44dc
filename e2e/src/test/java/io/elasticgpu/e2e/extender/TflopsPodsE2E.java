package io.elasticgpu.e2e.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pods asking compute in TFLOPS ({@code elasticgpu.io/gpu-tflops}) on the real kube-scheduler with our extender
 * ({@link ExtenderE2E}'s setup) and fake nodes of two card models: the same ask becomes a different share of each.
 */
@ExtendWith(ControlPlaneExtension.class)
class TflopsPodsE2E {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @BeforeAll
    static void startExtender(ControlPlane cp) throws IOException {
        ExtenderE2E.startExtender(cp);
    }

    @AfterAll
    static void stopExtender() {
        ExtenderE2E.stopExtender();
    }

    private static Pod pod(String name, Map<String, String> limits, String precision, String node) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        PodBuilder b = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .withLimits(q)
                .endResources()
                .endContainer()
                .endSpec();
        if (precision != null) {
            b.editMetadata()
                    .addToAnnotations(Annotations.TFLOPS_PRECISION, precision)
                    .endMetadata();
        }
        if (node != null) {
            b.editSpec().addToNodeSelector("kubernetes.io/hostname", node).endSpec();
        }
        return b.build();
    }

    private static void create(TestCluster cluster, Pod pod) {
        cluster.client().pods().inNamespace(cluster.namespace()).resource(pod).create();
    }

    private static PodGrant.Share share(TestCluster cluster, String name) {
        return PodGrant.fromJson(ExtenderE2E.pod(cluster, name)
                        .getMetadata()
                        .getAnnotations()
                        .get(Annotations.ALLOCATION))
                .containers()
                .get("main")
                .getFirst();
    }

    private static Map<String, String> tflops(String tflops) {
        return Map.of(ResourceNames.GPU_TFLOPS, tflops, ResourceNames.GPU_MEMORY, "8192");
    }

    @Test
    void theSameTflopsLandOnAnH100AndAnA100NodeAsTheShareOfEachModel(TestCluster cluster) {
        // The A100 node names its model in the label's form: the table's "NVIDIA A100-SXM4-80GB" all the same.
        List<String> nodes = cluster.createGpuNodes(List.of(
                GpuNodeSpec.of("h100", 2, "NVIDIA H100 80GB HBM3", 81_559),
                GpuNodeSpec.of("a100", 2, "NVIDIA-A100-SXM4-80GB", 81_920)));
        create(cluster, pod("on-h100", tflops("100"), null, nodes.get(0)));
        create(cluster, pod("on-a100", tflops("100"), null, nodes.get(1)));
        create(cluster, pod("fp32-on-a100", tflops("10"), "fp32", nodes.get(1)));
        await().atMost(WAIT).until(() -> ExtenderE2E.running(cluster).size() == 3);

        // bf16 by default: 100 x 100 / 989.5 = 10.11, up to 11 % of an H100; 100 x 100 / 312 = 32.05, up to 33 % of
        // an A100; fp32: 10 x 100 / 19.5 = 51.28, up to 52 % of an A100. Given: the share of the card's peak.
        assertThat(share(cluster, "on-h100"))
                .extracting(
                        PodGrant.Share::milli,
                        PodGrant.Share::memoryMib,
                        PodGrant.Share::tflops,
                        PodGrant.Share::precision,
                        PodGrant.Share::tflopsGiven)
                .containsExactly(110, 8192L, 100, "bf16", 108.84);
        assertThat(share(cluster, "on-a100"))
                .extracting(PodGrant.Share::milli, PodGrant.Share::tflops, PodGrant.Share::tflopsGiven)
                .containsExactly(330, 100, 102.96);
        assertThat(share(cluster, "fp32-on-a100"))
                .extracting(PodGrant.Share::milli, PodGrant.Share::precision, PodGrant.Share::tflopsGiven)
                .containsExactly(520, "fp32", 10.14);
    }

    @Test
    void nonsenseIsRefusedWithWhatToChangeAndNothingIsBound(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("h100", 1, "NVIDIA H100 80GB HBM3", 81_559)))
                .getFirst();
        Map<String, String> withCore = new LinkedHashMap<>(tflops("100"));
        withCore.put(ResourceNames.GPU_CORE, "30");
        create(cluster, pod("with-core", withCore, null, node));
        create(cluster, pod("fp8", tflops("100"), "fp8", node));
        create(cluster, pod("zero", tflops("0"), null, node));
        create(cluster, pod("no-memory", Map.of(ResourceNames.GPU_TFLOPS, "100"), null, node));

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(String.join("\n", ExtenderE2E.failedSchedulingMessages(cluster)))
                        .contains(
                                "container main asks elasticgpu.io/gpu-tflops: 100 and elasticgpu.io/gpu-core: 30; ask"
                                        + " compute one way")
                        .contains("precision \"fp8\" is not one of fp32, tf32, fp16, bf16, int8")
                        .contains("elasticgpu.io/gpu-tflops must be a whole number of TFLOPS > 0, was 0")
                        .contains("asks elasticgpu.io/gpu-tflops: 100 without elasticgpu.io/gpu-memory"));
        for (String name : List.of("with-core", "fp8", "zero", "no-memory")) {
            Pod p = ExtenderE2E.pod(cluster, name);
            assertThat(p.getSpec().getNodeName()).as(name).isNull();
            assertThat(p.getMetadata().getAnnotations()).as(name).doesNotContainKey(Annotations.ALLOCATION);
        }
    }

    @Test
    void cardsOfAModelTheTableDoesNotKnowAreNotOffered(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("g2", 1, "G2", 16_384)))
                .getFirst();
        create(cluster, pod("on-g2", tflops("10"), "fp32", node));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(ExtenderE2E.failedSchedulingMessages(cluster))
                        .anyMatch(m -> m.contains("the node's GPU model is not one the pod accepts")));
        assertThat(ExtenderE2E.pod(cluster, "on-g2").getSpec().getNodeName()).isNull();
    }
}
