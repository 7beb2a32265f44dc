package io.elasticgpu.controller.webhook;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code MutatingWebhookConfiguration} that sends pod creations to the webhook, and its create-or-update.
 *
 * <p>{@code failurePolicy: Fail}: a pod naming a claim is never admitted without its GPU resources. The
 * {@code matchConditions} (CEL, GA since Kubernetes 1.30) send only pods with an annotation key starting
 * {@code elasticgpu.io/egpuc-}, so with the webhook down every other pod is still admitted.
 */
final class WebhookRegistration {

    /** The webhook's name inside the configuration (a fully qualified name, as the apiserver requires). */
    static final String WEBHOOK_NAME = "claims.elasticgpu.io";
    static final String MATCH_CONDITION = "names-an-elastic-gpu-claim";
    static final String MATCH_EXPRESSION = "has(object.metadata.annotations) && object.metadata.annotations"
            + ".exists(k, k.startsWith('" + ClaimMutation.ANNOTATION_PREFIX + "'))";
    private static final String FIELD_MANAGER = "elastic-gpu-webhook";

    private WebhookRegistration() {
    }

    static MutatingWebhookConfiguration configuration(WebhookConfig config, int listenPort, String caPem) {
        WebhookClientConfigBuilder client = new WebhookClientConfigBuilder()
                .withCaBundle(Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)));
        WebhookClientConfig clientConfig = switch (config.target()) {
            case WebhookConfig.Target.Service s -> client.withNewService().withName(s.name())
                    .withNamespace(s.namespace()).withPort(s.port()).withPath(WebhookConfig.PATH).endService().build();
            case WebhookConfig.Target.Url u -> client.withUrl("https://" + (u.host().contains(":") ? "[" + u.host() + "]"
                    : u.host()) + ":" + (u.port() == 0 ? listenPort : u.port()) + WebhookConfig.PATH).build();
        };
        return new MutatingWebhookConfigurationBuilder()
                .withNewMetadata().withName(config.configurationName())
                .addToLabels("app.kubernetes.io/name", "elastic-gpu").endMetadata()
                .addNewWebhook()
                .withName(WEBHOOK_NAME)
                .withClientConfig(clientConfig)
                .withAdmissionReviewVersions("v1")
                .withSideEffects("None")
                .withFailurePolicy("Fail")
                .withMatchPolicy("Equivalent")
                .withReinvocationPolicy("Never")
                .withTimeoutSeconds(10)
                .addNewRule().withOperations("CREATE").withApiGroups("").withApiVersions("v1").withResources("pods")
                .withScope("Namespaced").endRule()
                .addNewMatchCondition().withName(MATCH_CONDITION).withExpression(MATCH_EXPRESSION).endMatchCondition()
                .endWebhook()
                .build();
    }

    /** Creates the configuration or brings it to this one (server-side apply, taking over its fields). */
    static void apply(KubernetesClient client, MutatingWebhookConfiguration configuration) {
        client.resource(configuration).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    }
}
