package io.elasticgpu.e2e.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUResources;
import io.elasticgpu.api.v1alpha1.ElasticGPUSource;
import io.elasticgpu.api.v1alpha1.ElasticGPUSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.api.v1alpha1.ValidationMessages;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CRDs the api module generates, applied as built to the real kube-apiserver: valid objects go in with their
 * defaults, invalid ones come back with the CEL messages of {@link ValidationMessages}.
 */
@ExtendWith(ControlPlaneExtension.class)
class ElasticGPUCrdE2E {

    @BeforeAll
    static void applyTheGeneratedCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    @Test
    void aValidClassClaimAndElasticGpuAreStoredWithDefaultsAndStatus(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        String name = cluster.namespace();
        try {
            ElasticGPUClass created = client.resource(gpuClass(name)).create();
            assertThat(created.getSpec().getReclaimPolicy()).isEqualTo(ElasticGPUClassSpec.ReclaimPolicy.Delete);
            assertThat(created.getSpec().getBindingMode())
                    .isEqualTo(ElasticGPUClassSpec.BindingMode.WaitForFirstConsumer);

            var claims = client.resources(ElasticGPUClaim.class).inNamespace(cluster.namespace());
            ElasticGPUClaim claim = claims.resource(claim(
                            "slice",
                            name,
                            Map.of(
                                    ResourceNames.GPU_MEMORY,
                                    "4096",
                                    ResourceNames.GPU_CORE,
                                    "50",
                                    ResourceNames.GPU_COUNT,
                                    "2")))
                    .create();
            claim.setStatus(claimStatus(ElasticGPUClaimStatus.Phase.Bound, name));
            assertThat(claims.resource(claim).updateStatus().getStatus().getElasticGPUName())
                    .isEqualTo(name);

            ElasticGPU gpu = client.resource(elasticGpu(name, cluster.namespace(), qgpuSource("gpu-node-1", 3)))
                    .create();
            gpu.setStatus(new ElasticGPUStatus());
            gpu.getStatus().setPhase(ElasticGPUStatus.Phase.Bound);
            assertThat(client.resource(gpu).updateStatus().getStatus().getPhase())
                    .isEqualTo(ElasticGPUStatus.Phase.Bound);

            // What `kubectl get egpu` prints: the server-side table built from the CRD's printer columns.
            assertThat(tableRow(client, "apis/elasticgpu.io/v1alpha1/elasticgpus/" + name))
                    .containsEntry("Node", "gpu-node-1")
                    .containsEntry("Card", "3")
                    .containsEntry("Phase", "Bound")
                    .containsEntry("Claim Namespace", cluster.namespace())
                    .containsEntry("Claim", "slice")
                    .containsEntry("Pod", "trainer")
                    .containsKey("Age");
            assertThat(tableRow(
                            client,
                            "apis/elasticgpu.io/v1alpha1/namespaces/" + cluster.namespace()
                                    + "/elasticgpuclaims/slice"))
                    .containsEntry("Class", name)
                    .containsEntry("Phase", "Bound")
                    .containsEntry("ElasticGPU", name);
            assertThat(tableRow(client, "apis/elasticgpu.io/v1alpha1/elasticgpuclasses/" + name))
                    .containsEntry("Provisioner", "elasticgpu.io/qgpu")
                    .containsEntry("Reclaim Policy", "Delete")
                    .containsEntry("Binding Mode", "WaitForFirstConsumer");
        } finally {
            client.resources(ElasticGPU.class).withName(name).delete();
            client.resources(ElasticGPUClass.class).withName(name).delete();
        }
    }

    @Test
    void invalidClaimsAreRejectedWithMessagesThatSayWhatToChange(TestCluster cluster) {
        var claims = cluster.client().resources(ElasticGPUClaim.class).inNamespace(cluster.namespace());

        assertRejected(
                () -> claims.resource(claim("empty", "c", Map.of())).create(), ValidationMessages.REQUESTS_EMPTY);
        assertRejected(
                () -> claims.resource(
                                claim("mixed", "c", Map.of(ResourceNames.GPU, "1", ResourceNames.GPU_MEMORY, "4096")))
                        .create(),
                ValidationMessages.WHOLE_AND_SLICE);
        // 150 % of one card: over the 100 a card has; quantities arrive as strings from fabric8 …
        assertRejected(
                () -> claims.resource(claim("core-string", "c", Map.of(ResourceNames.GPU_CORE, "150")))
                        .create(),
                ValidationMessages.coreAboveOneCard("150"));
        // … and as integers from a plain YAML manifest.
        assertRejected(
                () -> cluster.client()
                        .genericKubernetesResources("elasticgpu.io/v1alpha1", "ElasticGPUClaim")
                        .inNamespace(cluster.namespace())
                        .resource(rawClaim("core-int", Map.of(ResourceNames.GPU_CORE, 150)))
                        .create(),
                ValidationMessages.coreAboveOneCard("150"));
        assertRejected(
                () -> claims.resource(claim("count", "c", Map.of(ResourceNames.GPU_COUNT, "2")))
                        .create(),
                ValidationMessages.COUNT_WITHOUT_SLICE);
        assertRejected(
                () -> claims.resource(claim("nvidia", "c", Map.of(ResourceNames.NVIDIA_GPU, "1")))
                        .create(),
                ValidationMessages.REQUESTS_UNKNOWN_NAME);
        assertRejected(
                () -> claims.resource(claim("zero", "c", Map.of(ResourceNames.GPU_MEMORY, "0")))
                        .create(),
                ValidationMessages.REQUESTS_NOT_POSITIVE);
        Map<String, String> tflops = Map.of(ResourceNames.GPU_TFLOPS, "100", ResourceNames.GPU_MEMORY, "1280");
        assertRejected(
                () -> claims.resource(withPrecision(claim("fp64", "c", tflops), "fp64"))
                        .create(),
                ValidationMessages.tflopsPrecisionUnknown("fp64"));
        assertRejected(
                () -> claims.resource(withPrecision(
                                claim("no-tflops", "c", Map.of(ResourceNames.GPU_MEMORY, "4096")), "fp32"))
                        .create(),
                ValidationMessages.TFLOPS_PRECISION_WITHOUT_TFLOPS);
        assertThat(claims.list().getItems()).isEmpty();
        // a known precision on a claim asking TFLOPS is stored as written
        claims.resource(withPrecision(claim("fp32", "c", tflops), "fp32")).create();
        assertThat(claims.withName("fp32").get().getSpec().getTflopsPrecision()).isEqualTo("fp32");
    }

    private static ElasticGPUClaim withPrecision(ElasticGPUClaim claim, String precision) {
        claim.getSpec().setTflopsPrecision(precision);
        return claim;
    }

    @Test
    void aClaimsSpecMayChangeWhilePendingButNotOnceBound(TestCluster cluster) {
        var claims = cluster.client().resources(ElasticGPUClaim.class).inNamespace(cluster.namespace());
        claims.resource(claim("c", "qgpu", Map.of(ResourceNames.GPU_MEMORY, "4096")))
                .create();

        claims.withName("c").edit(c -> withMemory(c, "8192"));
        ElasticGPUClaim pending = claims.withName("c").get();
        pending.setStatus(claimStatus(ElasticGPUClaimStatus.Phase.Bound, "egpu-1"));
        claims.resource(pending).updateStatus();

        assertRejected(
                () -> claims.withName("c").edit(c -> withMemory(c, "16384")),
                ValidationMessages.CLAIM_SPEC_IMMUTABLE_WHEN_BOUND);
        assertThat(claims.withName("c").get().getSpec().getResources().getRequests())
                .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("8192"));
    }

    @Test
    void anElasticGpuWithTwoSourcesOrNoneIsRejected(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        ElasticGPUSource two = qgpuSource("gpu-node-1", 0);
        two.setPhysical(two.getQGPU());

        assertRejected(
                () -> client.resource(elasticGpu(cluster.namespace() + "-two", cluster.namespace(), two))
                        .create(),
                ValidationMessages.EXACTLY_ONE_SOURCE);
        assertRejected(
                () -> client.resource(
                                elasticGpu(cluster.namespace() + "-none", cluster.namespace(), new ElasticGPUSource()))
                        .create(),
                ValidationMessages.EXACTLY_ONE_SOURCE);
        assertThat(client.resources(ElasticGPU.class)
                        .withName(cluster.namespace() + "-two")
                        .get())
                .isNull();
    }

    private static void assertRejected(ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOfSatisfying(KubernetesClientException.class, e -> {
            assertThat(e.getCode()).isEqualTo(422);
            assertThat(e.getMessage()).contains(message);
        });
    }

    /** One object as the apiserver's table (what kubectl prints): column name to cell. */
    private static Map<String, Object> tableRow(KubernetesClient client, String path) throws Exception {
        var http = client.getHttpClient();
        HttpResponse<String> response = http.sendAsync(
                        http.newHttpRequestBuilder()
                                .uri(client.getMasterUrl() + path)
                                .header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
                                .build(),
                        String.class)
                .get(30, TimeUnit.SECONDS);
        assertThat(response.code()).as(response.body()).isEqualTo(200);
        Map<String, Object> table = map(Serialization.unmarshal(response.body(), Map.class));
        List<Map<String, Object>> columns = list(table.get("columnDefinitions"));
        List<Map<String, Object>> rows = list(table.get("rows"));
        List<Object> cells = list(rows.getFirst().get("cells"));
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            row.put((String) columns.get(i).get("name"), String.valueOf(cells.get(i)));
        }
        return row;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<?, ?> value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> list(Object value) {
        return (List<T>) value;
    }

    private static ElasticGPUClass gpuClass(String name) {
        ElasticGPUClass gpuClass = new ElasticGPUClass();
        gpuClass.setMetadata(new ObjectMetaBuilder().withName(name).build());
        gpuClass.setSpec(new ElasticGPUClassSpec());
        gpuClass.getSpec().setProvisioner(ElasticGPUClassSpec.Provisioner.QGPU);
        gpuClass.getSpec().setParameters(Map.of("isolation", "strict"));
        return gpuClass;
    }

    private static ElasticGPUClaim claim(String name, String className, Map<String, String> requests) {
        ElasticGPUClaim claim = new ElasticGPUClaim();
        claim.setMetadata(new ObjectMetaBuilder().withName(name).build());
        claim.setSpec(new ElasticGPUClaimSpec());
        claim.getSpec().setElasticGPUClassName(className);
        claim.getSpec().setResources(new ElasticGPUResources());
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        requests.forEach((k, v) -> quantities.put(k, new Quantity(v)));
        claim.getSpec().getResources().setRequests(quantities);
        return claim;
    }

    private static GenericKubernetesResource rawClaim(String name, Map<String, Object> requests) {
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("elasticgpu.io/v1alpha1")
                .withKind("ElasticGPUClaim")
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withAdditionalProperties(
                        Map.of("spec", Map.of("elasticGPUClassName", "c", "resources", Map.of("requests", requests))))
                .build();
    }

    private static ElasticGPUClaim withMemory(ElasticGPUClaim claim, String memory) {
        claim.getSpec().getResources().setRequests(Map.of(ResourceNames.GPU_MEMORY, new Quantity(memory)));
        return claim;
    }

    private static ElasticGPUClaimStatus claimStatus(ElasticGPUClaimStatus.Phase phase, String elasticGpu) {
        ElasticGPUClaimStatus status = new ElasticGPUClaimStatus();
        status.setPhase(phase);
        status.setElasticGPUName(elasticGpu);
        return status;
    }

    private static ElasticGPUSource qgpuSource(String node, int index) {
        ElasticGPUSource.Card card = new ElasticGPUSource.Card();
        card.setNodeName(node);
        card.setIndex(index);
        card.setUuid("GPU-" + index);
        ElasticGPUSource source = new ElasticGPUSource();
        source.setQGPU(card);
        return source;
    }

    /**
     * An ElasticGPU on node gpu-node-1, bound to claim {@code slice} and used by pod {@code trainer} in {@code
     * namespace}. */
    private static ElasticGPU elasticGpu(String name, String namespace, ElasticGPUSource source) {
        ElasticGPU gpu = new ElasticGPU();
        gpu.setMetadata(new ObjectMetaBuilder().withName(name).build());
        ElasticGPUSpec spec = new ElasticGPUSpec();
        spec.setSource(source);
        spec.setNodeName("gpu-node-1");
        spec.setCapacity(
                Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"), ResourceNames.GPU_CORE, new Quantity("50")));
        ElasticGPUSpec.ClaimReference claimRef = new ElasticGPUSpec.ClaimReference();
        claimRef.setNamespace(namespace);
        claimRef.setName("slice");
        spec.setClaimRef(claimRef);
        ElasticGPUSpec.PodReference podRef = new ElasticGPUSpec.PodReference();
        podRef.setNamespace(namespace);
        podRef.setName("trainer");
        podRef.setContainer("main");
        spec.setPodRef(podRef);
        gpu.setSpec(spec);
        return gpu;
    }
}
