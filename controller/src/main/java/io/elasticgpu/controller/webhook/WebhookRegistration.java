package io.elasticgpu.controller.webhook;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code MutatingWebhookConfiguration} that sends pod creations to the webhook, and its create-or-update. Two
 * webhooks, both at {@value WebhookConfig#PATH}, told apart by their {@code matchConditions} (CEL, GA since
 * Kubernetes 1.30), which no pod meets both of:
 * <ul>
 * <li>{@value #WEBHOOK_NAME}, pods with an annotation key starting {@code elasticgpu.io/egpuc-}, with
 * {@code failurePolicy: Fail}: a pod naming a claim is never admitted without its GPU resources;</li>
 * <li>{@value #SHARES_WEBHOOK_NAME}, the other pods that carry the {@value MpsLimits#PROCESSES_ANNOTATION} annotation
 * or, with isolation by MPS, name a GPU resource, with {@code failurePolicy: Ignore}: it refuses early, at creation,
 * what the node agent would refuse at allocation anyway ({@link ShareAdmission}), so with the webhook down these pods
 * are still admitted.</li>
 * </ul>
 * With the webhook down every pod but those naming a claim is admitted.
 */
final class WebhookRegistration {

    /** The webhook's name inside the configuration (a fully qualified name, as the apiserver requires). */
    static final String WEBHOOK_NAME = "claims.elasticgpu.io";

    static final String MATCH_CONDITION = "names-an-elastic-gpu-claim";
    static final String MATCH_EXPRESSION = "has(object.metadata.annotations) && object.metadata.annotations"
            + ".exists(k, k.startsWith('" + ClaimMutation.ANNOTATION_PREFIX + "'))";
    /** The webhook of pods naming no claim whose GPU shares are checked. */
    static final String SHARES_WEBHOOK_NAME = "shares.elasticgpu.io";

    static final String SHARES_MATCH_CONDITION = "asks-a-gpu-share-and-names-no-claim";
    private static final String FIELD_MANAGER = "elastic-gpu-webhook";

    private WebhookRegistration() {}

    static MutatingWebhookConfiguration configuration(WebhookConfig config, int listenPort, String caPem) {
        WebhookClientConfigBuilder client = new WebhookClientConfigBuilder()
                .withCaBundle(Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)));
        WebhookClientConfig clientConfig = switch (config.target()) {
            case WebhookConfig.Target.Service s ->
                client.withNewService()
                        .withName(s.name())
                        .withNamespace(s.namespace())
                        .withPort(s.port())
                        .withPath(WebhookConfig.PATH)
                        .endService()
                        .build();
            case WebhookConfig.Target.Url u ->
                client.withUrl("https://" + (u.host().contains(":") ? "[" + u.host() + "]" : u.host()) + ":"
                                + (u.port() == 0 ? listenPort : u.port()) + WebhookConfig.PATH)
                        .build();
        };
        return new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(config.configurationName())
                .addToLabels("app.kubernetes.io/name", "elastic-gpu")
                .endMetadata()
                .addToWebhooks(webhook(WEBHOOK_NAME, clientConfig, "Fail", MATCH_CONDITION, MATCH_EXPRESSION))
                .addToWebhooks(webhook(
                        SHARES_WEBHOOK_NAME,
                        clientConfig,
                        "Ignore",
                        SHARES_MATCH_CONDITION,
                        sharesExpression(config.shares())))
                .build();
    }

    private static MutatingWebhook webhook(
            String name, WebhookClientConfig clientConfig, String failurePolicy, String condition, String expression) {
        return new MutatingWebhookBuilder()
                .withName(name)
                .withClientConfig(clientConfig)
                .withAdmissionReviewVersions("v1")
                .withSideEffects("None")
                .withFailurePolicy(failurePolicy)
                .withMatchPolicy("Equivalent")
                .withReinvocationPolicy("Never")
                .withTimeoutSeconds(10)
                .addNewRule()
                .withOperations("CREATE")
                .withApiGroups("")
                .withApiVersions("v1")
                .withResources("pods")
                .withScope("Namespaced")
                .endRule()
                .addNewMatchCondition()
                .withName(condition)
                .withExpression(expression)
                .endMatchCondition()
                .build();
    }

    /**
     * The pods {@value #SHARES_WEBHOOK_NAME} is called for: none naming a claim (those go to {@value #WEBHOOK_NAME},
     * which checks their shares too), and of the others those with the {@value MpsLimits#PROCESSES_ANNOTATION}
     * annotation, and with isolation by MPS those naming any GPU resource in a container's limits or requests (every
     * name {@link io.elasticgpu.api.v1alpha1.PodAsks} reads). Whether the pod asks a slice is the webhook's
     * to decide.
     */
    static String sharesExpression(ShareAdmission shares) {
        String annotated = "has(object.metadata.annotations) && '" + MpsLimits.PROCESSES_ANNOTATION
                + "' in object.metadata.annotations";
        String asks = "(" + annotated + ")";
        if (shares.isolation() == ShareAdmission.Isolation.MPS) {
            List<String> names = new ArrayList<>(shares.units().names());
            names.addAll(ResourceNames.HAMI_QUALIFIERS);
            String named = names.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", ", "r in [", "]"));
            String container = "has(c.resources) && (has(c.resources.limits) && c.resources.limits.exists(r, " + named
                    + ") || has(c.resources.requests) && c.resources.requests.exists(r, " + named + "))";
            asks = "(" + annotated + " || object.spec.containers.exists(c, " + container + ")"
                    + " || has(object.spec.initContainers) && object.spec.initContainers.exists(c, " + container + "))";
        }
        return "!(" + MATCH_EXPRESSION + ") && " + asks;
    }
    /** Creates the configuration or brings it to this one (server-side apply, taking over its fields). */
    static void apply(KubernetesClient client, MutatingWebhookConfiguration configuration) {
        client.resource(configuration)
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
    }
}
