package io.elasticgpu.controller.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponseBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Function;

/**
 * {@code POST /mutate-pods}: decodes an {@code admission.k8s.io/v1} AdmissionReview, asks {@link ClaimMutation}, and
 * encodes the answer (a base64 {@code JSONPatch}, or {@code allowed: false} with a status code and message). No
 * decision is made here. Called on one virtual thread per request.
 */
final class MutatePodsHandler implements HttpHandler {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MutatePodsHandler.class);

    private final Function<String, ClaimMutation.Claims> claimsIn;
    private final KubernetesSerialization serialization = new KubernetesSerialization();

    /** @param claimsIn the claims of a namespace, by namespace; read at each request */
    MutatePodsHandler(Function<String, ClaimMutation.Claims> claimsIn) {
        this.claimsIn = claimsIn;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                send(exchange, 405, "text/plain", "POST an admission.k8s.io/v1 AdmissionReview to /mutate-pods\n");
                return;
            }
            AdmissionReview review;
            try {
                review = serialization.unmarshal(exchange.getRequestBody(), AdmissionReview.class);
            } catch (RuntimeException e) {
                send(exchange, 400, "text/plain", "not an AdmissionReview: " + e.getMessage() + "\n");
                return;
            }
            if (review == null || review.getRequest() == null) {
                send(exchange, 400, "text/plain", "the AdmissionReview has no request\n");
                return;
            }
            AdmissionReview answer = new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1")
                    .withKind("AdmissionReview").withResponse(respond(review.getRequest())).build();
            send(exchange, 200, "application/json", serialization.asJson(answer));
        }
    }

    AdmissionResponse respond(AdmissionRequest request) {
        AdmissionResponseBuilder response = new AdmissionResponseBuilder().withUid(request.getUid());
        if (request.getObject() == null) {
            return response.withAllowed(true).build();
        }
        Pod pod = serialization.convertValue(request.getObject(), Pod.class);
        String namespace = request.getNamespace() != null ? request.getNamespace()
                : pod.getMetadata() == null ? "" : pod.getMetadata().getNamespace();
        ClaimMutation.Decision decision;
        try {
            decision = ClaimMutation.decide(namespace, pod, claimsIn.apply(namespace));
        } catch (RuntimeException e) {
            LOG.warn("cannot read ElasticGPUClaims in namespace {}", namespace, e);
            decision = new ClaimMutation.Decision.Rejected(500, ("cannot read ElasticGPUClaims in namespace %s: %s;"
                    + " create the pod again once the webhook can reach the apiserver")
                    .formatted(namespace, e.getMessage()));
        }
        return switch (decision) {
            case ClaimMutation.Decision.Unchanged() -> response.withAllowed(true).build();
            case ClaimMutation.Decision.Patch(var operations) -> response.withAllowed(true).withPatchType("JSONPatch")
                    .withPatch(Base64.getEncoder().encodeToString(
                            serialization.asJson(operations).getBytes(StandardCharsets.UTF_8)))
                    .build();
            case ClaimMutation.Decision.Rejected(int code, String message) -> response.withAllowed(false)
                    .withStatus(new StatusBuilder().withCode(code).withMessage(message)
                            .withReason(code == ClaimMutation.FORBIDDEN ? "Forbidden" : code == 500 ? "InternalError"
                                    : "BadRequest")
                            .build())
                    .build();
        };
    }

    private static void send(HttpExchange exchange, int code, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(code, bytes.length);
        exchange.getResponseBody().write(bytes);
    }
}
