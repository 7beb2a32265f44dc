package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The webhook's configuration: what the factories fill in, and the message of each bad setting. */
class WebhookConfigTest {

    private static final io.elasticgpu.http.ListenAddress LISTEN = new io.elasticgpu.http.ListenAddress("127.0.0.1", 0);

    @Test
    void behindAServiceTheCaLivesInItsNamespaceAndCertificatesLastADay() {
        WebhookConfig c = WebhookConfig.forService(LISTEN, "elastic-gpu-webhook", "elastic-gpu-system")
                .build();

        assertThat(c.target())
                .isEqualTo(new WebhookConfig.Target.Service("elastic-gpu-webhook", "elastic-gpu-system", 443));
        assertThat(c.caSecret()).isEqualTo(new WebhookConfig.SecretRef("elastic-gpu-system", "elastic-gpu-webhook-ca"));
        assertThat(c.certificateLifetime()).isEqualTo(Duration.ofHours(24));
        assertThat(c.rotationCheck()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.configurationName()).isEqualTo("elastic-gpu");
        assertThat(c.shares()).isEqualTo(ShareAdmission.NONE);
    }

    @Test
    void atAUrlTheOptionalPartsAreSetByTheBuilder() {
        WebhookConfig c = WebhookConfig.forUrl(LISTEN, "10.0.0.5")
                .withUrl("10.0.0.5", 9443)
                .withCaSecret("elastic-gpu-system", "elastic-gpu-webhook-ca")
                .withCertificateLifetime(Duration.ofHours(1))
                .withRotationCheck(Duration.ofSeconds(10))
                .withConfigurationName("egpu-test")
                .build();

        assertThat(c.target()).isEqualTo(new WebhookConfig.Target.Url("10.0.0.5", 9443));
        assertThat(c.caSecret().namespace()).isEqualTo("elastic-gpu-system");
        assertThat(c.certificateLifetime()).isEqualTo(Duration.ofHours(1));
        assertThat(c.rotationCheck()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.configurationName()).isEqualTo("egpu-test");
        assertThat(WebhookConfig.forUrl(LISTEN, "127.0.0.1").build().caSecret().namespace())
                .isEqualTo("default");
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                bad(
                        "a Service name with capitals",
                        () -> WebhookConfig.forService(LISTEN, "Webhook", "elastic-gpu-system"),
                        "webhook: --webhook-service must be a Service name (lower-case letters, digits and '-'), was"
                                + " \"Webhook\"; e.g. elastic-gpu-webhook"),
                bad(
                        "a namespace with an underscore",
                        () -> WebhookConfig.forService(LISTEN, "elastic-gpu-webhook", "egpu_system"),
                        "webhook: --namespace-for-lease must be a namespace name (lower-case letters, digits and "
                                + "'-'), was"
                                + " \"egpu_system\"; e.g. elastic-gpu-system"),
                bad(
                        "a URL without a host",
                        () -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withUrl(" ", 9443),
                        "webhook: --webhook-url must name the host the apiserver calls, was \" \"; e.g. 10.0.0.5:9443"),
                bad(
                        "a CA Secret in namespace ''",
                        () -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withCaSecret("", "ca"),
                        "webhook: the CA's Secret namespace (--namespace-for-lease) must be a namespace name "
                                + "(lower-case"
                                + " letters, digits and '-'), was \"\"; e.g. elastic-gpu-system"),
                bad(
                        "a configuration name with a slash",
                        () -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withConfigurationName("a/b"),
                        "webhook: configurationName must be a MutatingWebhookConfiguration name (lower-case letters, "
                                + "digits"
                                + " and '-'), was \"a/b\"; e.g. elastic-gpu"),
                // renewed when a third remains: under 3 minutes that is under a minute, the default check period
                bad(
                        "certificates of two minutes",
                        () -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withCertificateLifetime(Duration.ofMinutes(2)),
                        "webhook: certificateLifetime must be at least 3 minutes, was PT2M; a certificate is renewed "
                                + "when a"
                                + " third of it remains, e.g. PT24H"),
                bad(
                        "no rotation check",
                        () -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withRotationCheck(Duration.ZERO),
                        "webhook: rotationCheck must be positive, was PT0S; e.g. PT1M"));
    }

    private static Arguments bad(String name, Supplier<WebhookConfig.Builder> builder, String message) {
        return Arguments.of(name, builder, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedNamingItsFlagValueAndFix(
            String name, Supplier<WebhookConfig.Builder> builder, String message) {
        assertThatThrownBy(() -> builder.get().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void aUrlPortPast65535IsRefusedNamingTheFlag() {
        assertThatThrownBy(() -> WebhookConfig.forUrl(LISTEN, "127.0.0.1").withUrl("10.0.0.5", 65_536))
                .hasMessage("webhook: the port of --webhook-url must be 0..65535, was 65536");
    }
}
