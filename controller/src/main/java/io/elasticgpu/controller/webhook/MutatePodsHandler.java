package io.elasticgpu.controller.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.elasticgpu.http.BadRequest;
import io.elasticgpu.http.HttpRequest;
import io.elasticgpu.http.HttpResponse;
import io.elasticgpu.http.Route;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code POST /mutate-pods}: decodes an {@code admission.k8s.io/v1} AdmissionReview, asks {@link ClaimMutation}, then
 * {@link ShareAdmission} about the pod as it would be admitted (the claims' patch applied), and encodes the answer (a
 * base64 {@code JSONPatch}, or {@code allowed: false} with a status code and message; an admitted pod may carry
 * {@link ShareAdmission#warnings}, which kubectl prints). No decision is made here.
 * Called on one virtual thread per request. A body that is not an AdmissionReview is a 400; an object that is not a
 * Pod is refused in the review ({@code allowed: false}, code 400), never a 5xx.
 */
final class MutatePodsHandler implements Route.Handler {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MutatePodsHandler.class);

    private final Function<String, ClaimMutation.Claims> claimsIn;
    private final ShareAdmission shares;
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    /** Without isolation: {@link ShareAdmission#NONE}. */
    MutatePodsHandler(Function<String, ClaimMutation.Claims> claimsIn) {
        this(claimsIn, ShareAdmission.NONE);
    }

    /**
     * @param claimsIn the claims of a namespace, by namespace; read at each request
     * @param shares   what GPU shares the nodes can hold
     */
    MutatePodsHandler(Function<String, ClaimMutation.Claims> claimsIn, ShareAdmission shares) {
        this.claimsIn = claimsIn;
        this.shares = shares;
    }

    /** The largest AdmissionReview read: a pod is at most 1.5 MiB in etcd, and a review may carry it twice. */
    static final int MAX_BODY_BYTES = 4 << 20;

    @Override
    public HttpResponse handle(HttpRequest request) {
        AdmissionReview review;
        try {
            review = serialization.unmarshal(new String(request.body(), StandardCharsets.UTF_8), AdmissionReview.class);
        } catch (RuntimeException e) {
            throw new BadRequest("not an admission.k8s.io/v1 AdmissionReview: " + e.getMessage());
        }
        if (review == null || review.getRequest() == null) {
            throw new BadRequest("the AdmissionReview has no request");
        }
        AdmissionReview answer = new AdmissionReviewBuilder()
                .withApiVersion("admission.k8s.io/v1")
                .withKind("AdmissionReview")
                .withResponse(respond(review.getRequest()))
                .build();
        return HttpResponse.json(serialization.asJson(answer).getBytes(StandardCharsets.UTF_8));
    }

    AdmissionResponse respond(AdmissionRequest request) {
        AdmissionResponseBuilder response = new AdmissionResponseBuilder().withUid(request.getUid());
        if (request.getObject() == null) {
            return response.withAllowed(true).build();
        }
        Pod pod;
        try {
            pod = serialization.convertValue(request.getObject(), Pod.class);
        } catch (RuntimeException e) {
            return response.withAllowed(false)
                    .withStatus(new StatusBuilder()
                            .withCode(400)
                            .withReason("BadRequest")
                            .withMessage("the object is not a readable Pod: " + e.getMessage())
                            .build())
                    .build();
        }
        String namespace = request.getNamespace() != null
                ? request.getNamespace()
                : pod.getMetadata() == null ? "" : pod.getMetadata().getNamespace();
        ClaimMutation.Decision decision;
        try {
            decision = ClaimMutation.decide(namespace, pod, claimsIn.apply(namespace));
        } catch (RuntimeException e) {
            LOG.warn("cannot read ElasticGPUClaims in namespace {}", namespace, e);
            decision = new ClaimMutation.Decision.Rejected(
                    500,
                    ("cannot read ElasticGPUClaims in namespace %s: %s;"
                                    + " create the pod again once the webhook can reach the apiserver")
                            .formatted(namespace, e.getMessage()));
        }
        List<String> warnings = List.of();
        if (!(decision instanceof ClaimMutation.Decision.Rejected)) {
            Optional<String> refusal = shareRefusal(namespace, pod, decision);
            if (refusal.isPresent()) {
                decision = new ClaimMutation.Decision.Rejected(ClaimMutation.BAD_REQUEST, refusal.get());
            } else {
                warnings = shareWarnings(namespace, pod, decision);
            }
        }
        if (!warnings.isEmpty()) {
            response.withWarnings(warnings);
        }
        return switch (decision) {
            case ClaimMutation.Decision.Unchanged() ->
                response.withAllowed(true).build();
            case ClaimMutation.Decision.Patch(var operations) ->
                response.withAllowed(true)
                        .withPatchType("JSONPatch")
                        .withPatch(Base64.getEncoder()
                                .encodeToString(serialization.asJson(operations).getBytes(StandardCharsets.UTF_8)))
                        .build();
            case ClaimMutation.Decision.Rejected(int code, String message) ->
                response.withAllowed(false)
                        .withStatus(new StatusBuilder()
                                .withCode(code)
                                .withMessage(message)
                                .withReason(
                                        code == ClaimMutation.FORBIDDEN
                                                ? "Forbidden"
                                                : code == 500 ? "InternalError" : "BadRequest")
                                .build())
                        .build();
        };
    }

    /** What {@link ShareAdmission} says of the pod with {@code decision}'s patch applied, if it refuses it. */
    private Optional<String> shareRefusal(String namespace, Pod pod, ClaimMutation.Decision decision) {
        Pod admitted = pod;
        try {
            if (decision instanceof ClaimMutation.Decision.Patch(var operations)) {
                admitted = patched(pod, operations);
            }
            return shares.refusal(namespace + "/" + ClaimMutation.podName(admitted), admitted);
        } catch (RuntimeException e) {
            // Never a 5xx for what the pod carries: the node agent checks the same rule when it allocates.
            LOG.warn(
                    "cannot check the GPU shares of pod {}/{}; admitting it", namespace, ClaimMutation.podName(pod), e);
            return Optional.empty();
        }
    }

    /** What {@link ShareAdmission#warnings} says of the pod with {@code decision}'s patch applied. */
    private List<String> shareWarnings(String namespace, Pod pod, ClaimMutation.Decision decision) {
        try {
            Pod admitted =
                    decision instanceof ClaimMutation.Decision.Patch(var operations) ? patched(pod, operations) : pod;
            return shares.warnings(namespace + "/" + ClaimMutation.podName(admitted), admitted);
        } catch (RuntimeException e) {
            LOG.warn("cannot check the GPU shares of pod {}/{}", namespace, ClaimMutation.podName(pod), e);
            return List.of();
        }
    }

    /**
     * The pod with the claims' operations applied. They are all {@code add} of an object member, at a path through
     * members and array indexes ({@link ClaimMutation}, {@link DraClaimPatch}), which is all this applies.
     */
    private Pod patched(Pod pod, List<ClaimMutation.PatchOperation> operations) {
        JsonNode tree = serialization.convertValue(pod, JsonNode.class);
        for (ClaimMutation.PatchOperation operation : operations) {
            String[] tokens = operation.path().substring(1).split("/", -1);
            JsonNode parent = tree;
            for (int i = 0; i < tokens.length - 1; i++) {
                String token = unescape(tokens[i]);
                parent = parent instanceof ArrayNode array ? array.get(Integer.parseInt(token)) : parent.get(token);
            }
            if (!"add".equals(operation.op()) || !(parent instanceof ObjectNode object)) {
                throw new IllegalStateException("cannot apply " + operation + " to the pod");
            }
            object.set(
                    unescape(tokens[tokens.length - 1]), serialization.convertValue(operation.value(), JsonNode.class));
        }
        return serialization.convertValue(tree, Pod.class);
    }

    /** A JSON pointer token as the member name it stands for (RFC 6901). */
    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }
}
