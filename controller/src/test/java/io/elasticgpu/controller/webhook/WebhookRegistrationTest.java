package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.controller.webhook.ShareAdmission.Isolation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The MutatingWebhookConfiguration the webhook writes. */
class WebhookRegistrationTest {

    private static final String CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    @Test
    void behindAServiceItIsCalledThroughTheServiceWithTheCaBundle() {
        MutatingWebhookConfiguration configuration = WebhookRegistration.configuration(
                WebhookConfig.forService(
                                new io.elasticgpu.http.ListenAddress("0.0.0.0", 8443), "egpu-webhook", "egpu-system")
                        .build(),
                8443,
                CA);

        assertThat(configuration.getMetadata().getName()).isEqualTo("elastic-gpu");
        MutatingWebhook webhook = configuration.getWebhooks().getFirst();
        assertThat(webhook.getName()).isEqualTo("claims.elasticgpu.io");
        assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
        assertThat(webhook.getSideEffects()).isEqualTo("None");
        assertThat(webhook.getAdmissionReviewVersions()).containsExactly("v1");
        assertThat(webhook.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getOperations()).containsExactly("CREATE");
            assertThat(rule.getResources()).containsExactly("pods");
        });
        assertThat(webhook.getMatchConditions())
                .singleElement()
                .satisfies(condition -> assertThat(condition.getExpression())
                        .isEqualTo("has(object.metadata.annotations) &&"
                                + " object.metadata.annotations.exists(k, k.startsWith('elasticgpu.io/egpuc-'))"));
        assertThat(webhook.getClientConfig().getUrl()).isNull();
        assertThat(webhook.getClientConfig().getService().getName()).isEqualTo("egpu-webhook");
        assertThat(webhook.getClientConfig().getService().getNamespace()).isEqualTo("egpu-system");
        assertThat(webhook.getClientConfig().getService().getPort()).isEqualTo(443);
        assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
        assertThat(new String(
                        Base64.getDecoder().decode(webhook.getClientConfig().getCaBundle()), StandardCharsets.US_ASCII))
                .isEqualTo(CA);
    }

    @Test
    void calledDirectlyItsUrlHasTheHostAndThePortListenedOn() {
        WebhookConfig config = WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                .build();

        assertThat(WebhookRegistration.configuration(config, 40123, CA)
                        .getWebhooks()
                        .getFirst()
                        .getClientConfig()
                        .getUrl())
                .isEqualTo("https://127.0.0.1:40123/mutate-pods");
        assertThat(config.certificateNames()).containsExactly("127.0.0.1");
        assertThat(WebhookRegistration.configuration(
                                WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("0.0.0.0", 0), "::1")
                                        .build(),
                                8443,
                                CA)
                        .getWebhooks()
                        .getFirst()
                        .getClientConfig()
                        .getUrl())
                .isEqualTo("https://[::1]:8443/mutate-pods");
    }

    @Test
    void behindAServiceTheCertificateNamesTheServiceDnsNames() {
        assertThat(WebhookConfig.forService(
                                new io.elasticgpu.http.ListenAddress("0.0.0.0", 8443), "egpu-webhook", "egpu-system")
                        .build()
                        .certificateNames())
                .isEqualTo(List.of("egpu-webhook.egpu-system.svc", "egpu-webhook.egpu-system.svc.cluster.local"));
    }

    @Test
    void podsNamingNoClaimAreSentToTheSharesWebhookWhichIgnoresItsFailures() {
        MutatingWebhookConfiguration configuration = WebhookRegistration.configuration(
                WebhookConfig.forService(
                                new io.elasticgpu.http.ListenAddress("0.0.0.0", 8443), "egpu-webhook", "egpu-system")
                        .build(),
                8443,
                CA);

        assertThat(configuration.getWebhooks())
                .extracting(MutatingWebhook::getName)
                .containsExactly("claims.elasticgpu.io", "shares.elasticgpu.io");
        MutatingWebhook claims = configuration.getWebhooks().getFirst();
        MutatingWebhook shares = configuration.getWebhooks().get(1);
        assertThat(shares.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(shares.getClientConfig()).isEqualTo(claims.getClientConfig());
        assertThat(shares.getRules()).isEqualTo(claims.getRules());
        assertThat(shares.getSideEffects()).isEqualTo("None");
        assertThat(shares.getReinvocationPolicy()).isEqualTo("Never");
        // Without isolation: only pods with the process annotation, and never one naming a claim.
        assertThat(shares.getMatchConditions()).singleElement().satisfies(condition -> {
            assertThat(condition.getName()).isEqualTo("asks-a-gpu-share-and-names-no-claim");
            assertThat(condition.getExpression())
                    .isEqualTo("!(has(object.metadata.annotations) &&"
                            + " object.metadata.annotations.exists(k, k.startsWith('elasticgpu.io/egpuc-'))) &&"
                            + " (has(object.metadata.annotations) && 'elasticgpu.io/gpu-processes' in "
                            + "object.metadata.annotations)");
        });
    }

    @Test
    void withMpsEveryPodNamingAGpuResourceIsSentToTheSharesWebhook() {
        String names = "r in ['elasticgpu.io/gpu', 'elasticgpu.io/gpu-memory', 'elasticgpu.io/gpu-core',"
                + " 'elasticgpu.io/gpu-count', 'nvidia.com/gpu', 'aliyun.com/gpu-mem', 'volcano.sh/gpu-memory',"
                + " 'volcano.sh/gpu-number', 'nvidia.com/gpumem', 'nvidia.com/gpumem-percentage', "
                + "'nvidia.com/gpucores']";
        String container = "has(c.resources) && (has(c.resources.limits) && c.resources.limits.exists(r, " + names
                + ") || has(c.resources.requests) && c.resources.requests.exists(r, " + names + "))";

        assertThat(WebhookRegistration.sharesExpression(new ShareAdmission(Isolation.MPS, PodAsks.Units.DEFAULT)))
                .isEqualTo("!(has(object.metadata.annotations) && object.metadata.annotations.exists(k,"
                        + " k.startsWith('elasticgpu.io/egpuc-'))) && (has(object.metadata.annotations) &&"
                        + " 'elasticgpu.io/gpu-processes' in object.metadata.annotations"
                        + " || object.spec.containers.exists(c, " + container + ")"
                        + " || has(object.spec.initContainers) && object.spec.initContainers.exists(c, " + container
                        + "))");
    }
}
