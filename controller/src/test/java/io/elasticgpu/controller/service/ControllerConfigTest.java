package io.elasticgpu.controller.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.controller.webhook.WebhookConfig;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The controller's configuration: the builder's defaults are the flags' (but the webhook), and each bad setting its
 * message. */
class ControllerConfigTest {

    @Test
    void theDefaultsAreTheFlagsDefaultsWithoutAWebhook() {
        ControllerConfig c = ControllerConfig.builder().build();

        assertThat(c.httpListen()).isEqualTo(new io.elasticgpu.http.ListenAddress("0.0.0.0", 8080));
        assertThat(c.leaseNamespace()).isEqualTo("elastic-gpu-system");
        assertThat(c.leaderElection()).isTrue();
        assertThat(c.webhook()).isEmpty();
        assertThat(c.resync()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theOptionalPartsAreSetByTheBuilder() {
        WebhookConfig webhook = WebhookConfig.forUrl(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), "127.0.0.1")
                .build();
        ControllerConfig c = ControllerConfig.builder()
                .withHttpListen(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0))
                .withLeaseNamespace("egpu")
                .withoutLeaderElection()
                .withWebhook(webhook)
                .withResync(Duration.ofSeconds(30))
                .build();

        assertThat(c.httpListen().port()).isZero();
        assertThat(c.leaseNamespace()).isEqualTo("egpu");
        assertThat(c.leaderElection()).isFalse();
        assertThat(c.webhook()).contains(webhook);
        assertThat(c.resync()).isEqualTo(Duration.ofSeconds(30));
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                Arguments.of(
                        "a lease namespace with capitals",
                        (UnaryOperator<ControllerConfig.Builder>) b -> b.withLeaseNamespace("GPU"),
                        "controller: --namespace-for-lease must be a namespace name (lower-case letters, digits and "
                                + "'-'),"
                                + " was \"GPU\"; e.g. elastic-gpu-system"),
                Arguments.of(
                        "an empty lease namespace",
                        (UnaryOperator<ControllerConfig.Builder>) b -> b.withLeaseNamespace(""),
                        "controller: --namespace-for-lease must be a namespace name (lower-case letters, digits and "
                                + "'-'),"
                                + " was \"\"; e.g. elastic-gpu-system"),
                Arguments.of(
                        "no resync",
                        (UnaryOperator<ControllerConfig.Builder>) b -> b.withResync(Duration.ZERO),
                        "controller: the resync period must be positive, was PT0S; e.g. PT1M"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedNamingItsFlagValueAndFix(
            String name, UnaryOperator<ControllerConfig.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(ControllerConfig.builder()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
