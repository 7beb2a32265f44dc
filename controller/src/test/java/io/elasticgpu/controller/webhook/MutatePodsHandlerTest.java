package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.controller.webhook.ShareAdmission.Isolation;
import io.elasticgpu.http.HttpRequest;
import io.elasticgpu.http.HttpResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The wire: an AdmissionReview as the kube-apiserver sends it in, the response it reads back. */
class MutatePodsHandlerTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final MutatePodsHandler handler =
            new MutatePodsHandler(namespace -> name -> "team-a".equals(namespace) && "slice".equals(name)
                    ? Optional.of(ClaimMutationTest.claim(Map.of("elasticgpu.io/gpu-memory", "4096")))
                    : Optional.empty());

    @Test
    void aPodNamingAClaimIsAnsweredWithABase64JsonPatch() {
        AdmissionResponse response = handler.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"slice\"}").getRequest());

        assertThat(response.getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(response.getAllowed()).isTrue();
        assertThat(response.getPatchType()).isEqualTo("JSONPatch");
        assertThat(new String(Base64.getDecoder().decode(response.getPatch()), StandardCharsets.UTF_8))
                .isEqualTo("[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources\",\"value\":{\"limits\":"
                        + "{\"elasticgpu.io/gpu-memory\":\"4096\"},"
                        + "\"requests\":{\"elasticgpu.io/gpu-memory\":\"4096\"}}}]");
        assertThat(response.getStatus()).isNull();
    }

    @Test
    void aPodNamingAMissingClaimIsRefusedWith403AndTheMessage() {
        AdmissionResponse response = handler.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"big-gpu\"}").getRequest());

        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getPatch()).isNull();
        assertThat(response.getStatus().getCode()).isEqualTo(403);
        assertThat(response.getStatus().getReason()).isEqualTo("Forbidden");
        assertThat(response.getStatus().getMessage())
                .isEqualTo("pod team-a/train: container main names"
                        + " ElasticGPUClaim big-gpu, which does not exist in namespace team-a; create it or fix the "
                        + "annotation"
                        + " elasticgpu.io/egpuc-main");
    }

    @Test
    void aPodWithoutClaimAnnotationsIsAllowedWithoutAPatch() {
        AdmissionResponse response = handler.respond(review("{}").getRequest());

        assertThat(response.getAllowed()).isTrue();
        assertThat(response.getPatchType()).isNull();
        assertThat(response.getPatch()).isNull();
    }

    @Test
    void aClaimLookupThatFailsRefusesThePodWith500AndSaysToRetry() {
        MutatePodsHandler failing = new MutatePodsHandler(namespace -> name -> {
            throw new IllegalStateException("connection refused");
        });

        AdmissionResponse response = failing.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"slice\"}").getRequest());

        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getStatus().getCode()).isEqualTo(500);
        assertThat(response.getStatus().getMessage())
                .isEqualTo("cannot read ElasticGPUClaims in namespace team-a:"
                        + " connection refused; create the pod again once the webhook can reach the apiserver");
    }

    /**
     * team-a's claims, of a class served as extended resources: slice (4 GiB), thin and dra (1 % and 4 GiB),
     * fp32-tflops (1 TFLOPS of fp32, 16 GiB) and tflops (the same of the pod's precision).
     */
    private static final ClaimMutation.Claims TEAM_A = new ClaimMutation.Claims() {
        @Override
        public Optional<ElasticGPUClaim> find(String name) {
            return switch (name) {
                case "slice" -> Optional.of(ClaimMutationTest.claim(Map.of("elasticgpu.io/gpu-memory", "4096")));
                case "thin", "dra" ->
                    Optional.of(ClaimMutationTest.claim(
                            Map.of("elasticgpu.io/gpu-memory", "4096", "elasticgpu.io/gpu-core", "1")));
                case "fp32-tflops", "tflops" -> {
                    ElasticGPUClaim claim = ClaimMutationTest.claim(
                            Map.of("elasticgpu.io/gpu-memory", "16384", "elasticgpu.io/gpu-tflops", "1"));
                    claim.getSpec().setTflopsPrecision(name.equals("tflops") ? null : "fp32");
                    yield Optional.of(claim);
                }
                default -> Optional.empty();
            };
        }
    };

    /** The webhook of a cluster whose node agents run with --isolation mps. */
    private final MutatePodsHandler mps =
            new MutatePodsHandler(namespace -> TEAM_A, new ShareAdmission(Isolation.MPS, PodAsks.Units.DEFAULT));

    @Test
    void aPodAskingASliceWithABadProcessCountIsRefusedWith400InsideA200Review() {
        byte[] body = reviewJson(
                        "{\"elasticgpu.io/gpu-processes\": \"0\"}",
                        "{\"limits\": {\"elasticgpu.io/gpu-memory\": \"4096\"}}")
                .getBytes(StandardCharsets.UTF_8);

        HttpResponse answer = handler.handle(new HttpRequest("POST", URI.create("/mutate-pods"), Map.of(), body));

        assertThat(answer.status()).isEqualTo(200);
        AdmissionResponse response = JSON.unmarshal(
                        new String(answer.body(), StandardCharsets.UTF_8), AdmissionReview.class)
                .getResponse();
        assertThat(response.getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getPatch()).isNull();
        assertThat(response.getStatus().getCode()).isEqualTo(400);
        assertThat(response.getStatus().getReason()).isEqualTo("BadRequest");
        assertThat(response.getStatus().getMessage())
                .isEqualTo("pod team-a/train: annotation elasticgpu.io/gpu-processes"
                        + " must be a whole number 1..48 (how many CUDA processes share the GPU share), was \"0\"; "
                        + "set it to how"
                        + " many CUDA processes each container with a GPU slice runs at once, or remove it for 1");
    }

    @Test
    void withMpsAPodAskingAShareMpsCannotDivideIsRefusedWithWhatToAsk() {
        AdmissionResponse response = mps.respond(review(
                        "{\"elasticgpu.io/gpu-processes\": \"2\"}",
                        "{\"limits\": {\"elasticgpu.io/gpu-core\": \"1\", \"elasticgpu.io/gpu-memory\": \"4096\"}}")
                .getRequest());

        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getStatus().getCode()).isEqualTo(400);
        assertThat(response.getStatus().getMessage())
                .isEqualTo("pod team-a/train: container main asks a GPU slice that"
                        + " CUDA MPS cannot hold (this cluster holds slices to their shares with MPS): a compute "
                        + "share of 1 %"
                        + " cannot be divided among 2 processes (MPS limits each process to whole percent); ask for "
                        + "at least 2 %"
                        + " or lower elasticgpu.io/gpu-processes");
        // Without isolation the same pod is admitted as it is.
        assertThat(handler.respond(review(
                                        "{\"elasticgpu.io/gpu-processes\": \"2\"}",
                                        "{\"limits\": {\"elasticgpu.io/gpu-core\": \"1\", "
                                                + "\"elasticgpu.io/gpu-memory\": \"4096\"}}")
                                .getRequest())
                        .getAllowed())
                .isTrue();
    }

    /**
     * Through HTTP: a share without memory is refused under MPS, saying what to add; one whose part is all context
     * (1024 MiB for 1 process, the default reserve) says the least that does.
     */
    @Test
    void withMpsAComputeOnlyShareOrOneNoLargerThanTheContextReserveIsRefusedWith400() {
        AdmissionResponse computeOnly = answer(mps, "{\"limits\": {\"elasticgpu.io/gpu-core\": \"30\"}}");
        AdmissionResponse oneGib = answer(
                mps, "{\"limits\": {\"elasticgpu.io/gpu-core\": \"30\", \"elasticgpu.io/gpu-memory\": \"1024\"}}");

        assertThat(computeOnly.getAllowed()).isFalse();
        assertThat(computeOnly.getStatus().getCode()).isEqualTo(400);
        assertThat(computeOnly.getStatus().getMessage())
                .isEqualTo("pod team-a/train: container main asks a GPU slice that CUDA MPS cannot hold (this cluster"
                        + " holds slices to their shares with MPS): the share on card 0 asks 30 % of compute and no"
                        + " memory; under MPS every share needs memory, or its processes could take all of the card's"
                        + " memory from the shares beside it: add elasticgpu.io/gpu-memory (at least 1025 MiB for 1"
                        + " process)");
        assertThat(oneGib.getAllowed()).isFalse();
        assertThat(oneGib.getStatus().getMessage())
                .endsWith("(which MPS does not count; --mps-context-reserve-mib); ask for at least 1025 MiB");
        // Without isolation both are admitted as they are.
        assertThat(answer(handler, "{\"limits\": {\"elasticgpu.io/gpu-core\": \"30\"}}")
                        .getAllowed())
                .isTrue();
    }

    /** {@code webhook}'s answer over HTTP to a review of team-a/train whose container main has {@code resources}. */
    private static AdmissionResponse answer(MutatePodsHandler webhook, String resources) {
        byte[] body = reviewJson("{}", resources).getBytes(StandardCharsets.UTF_8);
        HttpResponse answer = webhook.handle(new HttpRequest("POST", URI.create("/mutate-pods"), Map.of(), body));
        assertThat(answer.status()).isEqualTo(200);
        return JSON.unmarshal(new String(answer.body(), StandardCharsets.UTF_8), AdmissionReview.class)
                .getResponse();
    }

    @Test
    void withMpsAClaimsShareIsCheckedAsThePodWillHaveIt() {
        AdmissionResponse refused = mps.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"thin\"," + " \"elasticgpu.io/gpu-processes\": \"2\"}")
                        .getRequest());
        AdmissionResponse patched = mps.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"slice\"," + " \"elasticgpu.io/gpu-processes\": \"2\"}")
                        .getRequest());

        assertThat(refused.getAllowed()).isFalse();
        assertThat(refused.getStatus().getMessage())
                .isEqualTo("pod team-a/train: container main asks a GPU slice that"
                        + " CUDA MPS cannot hold (this cluster holds slices to their shares with MPS): a compute "
                        + "share of 1 %"
                        + " cannot be divided among 2 processes (MPS limits each process to whole percent); ask for "
                        + "at least 2 %"
                        + " or lower elasticgpu.io/gpu-processes");
        // 4096 MiB / 2 = 2048 MiB each: the patch is the one without isolation.
        assertThat(patched.getAllowed()).isTrue();
        assertThat(new String(Base64.getDecoder().decode(patched.getPatch()), StandardCharsets.UTF_8))
                .isEqualTo("[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources\",\"value\":{\"limits\":"
                        + "{\"elasticgpu.io/gpu-memory\":\"4096\"},"
                        + "\"requests\":{\"elasticgpu.io/gpu-memory\":\"4096\"}}}]");
    }

    /**
     * 1 TFLOPS among 8 processes: of bf16, 1 % of any card, refused; of fp32 (the claim's precision, which the patch
     * gives the pod), 13 % of a T4 (8.1), admitted, with a warning naming the models of which it is under 8 %.
     */
    @Test
    void withMpsAClaimsTflopsAreCheckedInTheClaimsPrecisionAndTheWarningReachesTheReview() {
        AdmissionResponse bf16 =
                mps.respond(review("{\"elasticgpu.io/egpuc-main\": \"tflops\", \"elasticgpu.io/gpu-processes\": \"8\"}")
                        .getRequest());
        AdmissionResponse fp32 = mps.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"fp32-tflops\", \"elasticgpu.io/gpu-processes\": \"8\"}")
                        .getRequest());

        assertThat(bf16.getAllowed()).isFalse();
        assertThat(bf16.getStatus().getMessage()).contains("1 TFLOPS of bf16 are at most 1 % of a card (of NVIDIA L4");
        assertThat(fp32.getAllowed()).isTrue();
        assertThat(new String(Base64.getDecoder().decode(fp32.getPatch()), StandardCharsets.UTF_8))
                .contains("{\"op\":\"add\",\"path\":\"/metadata/annotations/elasticgpu.io~1tflops-precision\","
                        + "\"value\":\"fp32\"}");
        assertThat(fp32.getWarnings())
                .singleElement()
                .asString()
                .startsWith("pod team-a/train: container main asks 1 TFLOPS of fp32, too small a share of ")
                .contains("NVIDIA H100 80GB HBM3 (2 %)")
                .doesNotContain("Tesla T4");
    }

    @Test
    void aClaimServedThroughDraIsLeftToTheNodeAgentWhateverItsProcessCount() {
        ClaimMutation.Claims throughDra = new ClaimMutation.Claims() {
            @Override
            public Optional<ElasticGPUClaim> find(String name) {
                return TEAM_A.find(name);
            }

            @Override
            public Optional<ElasticGPUClass> gpuClass(String name) {
                ElasticGPUClass dra = ElasticGPUClass.of(
                        name, ElasticGPUClassSpec.Provisioner.QGPU, ElasticGPUClassSpec.ReclaimPolicy.Delete);
                dra.getSpec().setApi(ElasticGPUClassSpec.Api.DRA);
                return Optional.of(dra);
            }
        };
        MutatePodsHandler handler = new MutatePodsHandler(
                namespace -> throughDra, new ShareAdmission(Isolation.MPS, PodAsks.Units.DEFAULT));

        AdmissionResponse response = handler.respond(
                review("{\"elasticgpu.io/egpuc-main\": \"dra\"," + " \"elasticgpu.io/gpu-processes\": \"two\"}")
                        .getRequest());

        assertThat(response.getAllowed()).isTrue();
        assertThat(new String(Base64.getDecoder().decode(response.getPatch()), StandardCharsets.UTF_8))
                .contains("\"resourceClaimTemplateName\":\"egpuc-dra\"");
    }

    @Test
    void aPodAskingWholeCardsIsAdmittedWhateverItsProcessCount() {
        AdmissionResponse response = mps.respond(
                review("{\"elasticgpu.io/gpu-processes\": \"100\"}", "{\"limits\": {\"elasticgpu.io/gpu\": \"1\"}}")
                        .getRequest());

        assertThat(response.getAllowed()).isTrue();
        assertThat(response.getPatch()).isNull();
    }

    /** An AdmissionReview for creating pod team-a/train (one container, main) with these annotations. */
    private static AdmissionReview review(String annotations) {
        return JSON.unmarshal(reviewJson(annotations), AdmissionReview.class);
    }

    /** An AdmissionReview for creating pod team-a/train, its container main with these resources. */
    private static AdmissionReview review(String annotations, String resources) {
        return JSON.unmarshal(reviewJson(annotations, resources), AdmissionReview.class);
    }

    /** {@link #review} as the JSON the apiserver sends. */
    static String reviewJson(String annotations) {
        return reviewJson(annotations, null);
    }

    /** {@link #review(String, String)} as the JSON the apiserver sends; no resources when {@code resources} is null. */
    static String reviewJson(String annotations, String resources) {
        return """
                {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                 "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                   "kind": {"group": "", "version": "v1", "kind": "Pod"},
                   "resource": {"group": "", "version": "v1", "resource": "pods"},
                   "namespace": "team-a", "name": "train", "operation": "CREATE",
                   "object": {"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "train", "annotations": %s},
                     "spec": {"containers": [{"name": "main", "image": "trainer:1"%s}]}}}}
                """.formatted(annotations, resources == null ? "" : ", \"resources\": " + resources);
    }
}
