package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The wire: an AdmissionReview as the kube-apiserver sends it in, the response it reads back. */
class MutatePodsHandlerTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final MutatePodsHandler handler = new MutatePodsHandler(namespace -> name ->
            "team-a".equals(namespace) && "slice".equals(name)
                    ? Optional.of(ClaimMutationTest.claim(Map.of("elasticgpu.io/gpu-memory", "4096")))
                    : Optional.empty());

    @Test
    void aPodNamingAClaimIsAnsweredWithABase64JsonPatch() {
        AdmissionResponse response = handler.respond(review("{\"elasticgpu.io/egpuc-main\": \"slice\"}").getRequest());

        assertThat(response.getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(response.getAllowed()).isTrue();
        assertThat(response.getPatchType()).isEqualTo("JSONPatch");
        assertThat(new String(Base64.getDecoder().decode(response.getPatch()), StandardCharsets.UTF_8)).isEqualTo(
                "[{\"op\":\"add\",\"path\":\"/spec/containers/0/resources\",\"value\":{\"limits\":"
                        + "{\"elasticgpu.io/gpu-memory\":\"4096\"},\"requests\":{\"elasticgpu.io/gpu-memory\":\"4096\"}}}]");
        assertThat(response.getStatus()).isNull();
    }

    @Test
    void aPodNamingAMissingClaimIsRefusedWith403AndTheMessage() {
        AdmissionResponse response = handler.respond(review("{\"elasticgpu.io/egpuc-main\": \"big-gpu\"}").getRequest());

        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getPatch()).isNull();
        assertThat(response.getStatus().getCode()).isEqualTo(403);
        assertThat(response.getStatus().getReason()).isEqualTo("Forbidden");
        assertThat(response.getStatus().getMessage()).isEqualTo("pod team-a/train: container main names"
                + " ElasticGPUClaim big-gpu, which does not exist in namespace team-a; create it or fix the annotation"
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

        AdmissionResponse response = failing.respond(review("{\"elasticgpu.io/egpuc-main\": \"slice\"}").getRequest());

        assertThat(response.getAllowed()).isFalse();
        assertThat(response.getStatus().getCode()).isEqualTo(500);
        assertThat(response.getStatus().getMessage()).isEqualTo("cannot read ElasticGPUClaims in namespace team-a:"
                + " connection refused; create the pod again once the webhook can reach the apiserver");
    }

    /** An AdmissionReview for creating pod team-a/train (one container, main) with these annotations. */
    private static AdmissionReview review(String annotations) {
        return JSON.unmarshal(reviewJson(annotations), AdmissionReview.class);
    }

    /** {@link #review} as the JSON the apiserver sends. */
    static String reviewJson(String annotations) {
        return """
                {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                 "request": {"uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                   "kind": {"group": "", "version": "v1", "kind": "Pod"},
                   "resource": {"group": "", "version": "v1", "resource": "pods"},
                   "namespace": "team-a", "name": "train", "operation": "CREATE",
                   "object": {"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "train", "annotations": %s},
                     "spec": {"containers": [{"name": "main", "image": "trainer:1"}]}}}}
                """.formatted(annotations);
    }
}
