package io.elasticgpu.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.policy.PolicyName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ExtenderConfigTest {

    @TempDir
    Path dir;

    @Test
    void theLookaheadPolicyRunsInTheDecidingFilterAndIsRefusedWithoutIt() {
        assertThat(ExtenderConfig.builder()
                        .withPolicy(PolicyName.ELASTIC_LOOKAHEAD)
                        .build()
                        .policy())
                .isEqualTo(PolicyName.ELASTIC_LOOKAHEAD);
        assertThatThrownBy(() -> ExtenderConfig.builder()
                        .withPolicy(PolicyName.ELASTIC_LOOKAHEAD)
                        .withDecideInFilter(false)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "policy (--policy): elastic-lookahead rolls out its best nodes in the deciding" + " filter")
                .hasMessageEndingWith("turn decideInFilter on or choose elastic");
    }

    @Test
    void badValuesSayWhatToChange() {
        assertThatThrownBy(() -> PolicyName.parse("tetris"))
                .hasMessageStartingWith("unknown policy \"tetris\"; choose one of: elastic, binpack");
        assertThatThrownBy(() -> ExtenderConfig.builder().withListen("8888").build())
                .hasMessage("listen (--listen) must be host:port, e.g. 127.0.0.1:8888, was \"8888\"");
        assertThatThrownBy(() ->
                        ExtenderConfig.builder().withListen("127.0.0.1:99999").build())
                .hasMessage("listen (--listen): the port must be 0..65535, was \"99999\"");
        assertThatThrownBy(() -> ExtenderConfig.builder()
                        .withTlsCertFile(Optional.of(Path.of("cert.pem")))
                        .build())
                .hasMessage("tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together; give both or neither,"
                        + " were \"cert.pem\" and none");
        assertThatThrownBy(() -> ExtenderConfig.builder().withMemoryBlockMib(0).build())
                .hasMessage("memoryBlockMib (--memory-block-mib) must be >= 1, was 0; give the MiB in one unit of"
                        + " elasticgpu.io/gpu-memory, the node agents' --memory-block-mib");
        assertThatThrownBy(() ->
                        ExtenderConfig.builder().withLedgerNamespace("Bad_NS").build())
                .hasMessage("ledgerNamespace (--ledger-namespace) must be a namespace name, was \"Bad_NS\"; lower-case"
                        + " letters, digits and '-', e.g. elastic-gpu-system");
        assertThatThrownBy(() -> ExtenderConfig.builder()
                        .withPolicyWeight(0)
                        .withTopologyWeight(0)
                        .build())
                .hasMessage("policyWeight and topologyWeight must be finite, >= 0 and not both 0, were 0.0 and 0.0;"
                        + " give --policy-weight or --topology-weight a positive weight (defaults 1 and 2)");
        assertThatThrownBy(() -> ExtenderConfig.builder().withTopologyWeight(-1).build())
                .hasMessageStartingWith("policyWeight and topologyWeight must be finite, >= 0");
    }

    /** Every check of the constructor, one case each: the setting, its flag where it has one, the value and the fix. */
    static Stream<Arguments> badSettings() {
        return Stream.of(
                bad(
                        "metricsListen without a port",
                        b -> b.withMetricsListen(Optional.of("9402")),
                        "metricsListen (--metrics-listen) must be host:port, e.g. 127.0.0.1:8888, was \"9402\""),
                bad(
                        "listen with a port past 65535",
                        b -> b.withListen("127.0.0.1:65536"),
                        "listen (--listen): the port must be 0..65535, was \"65536\""),
                bad(
                        "a key without its certificate",
                        b -> b.withTlsKeyFile(Optional.of(Path.of("key.pem"))),
                        "tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together; give both or neither,"
                                + " were none and \"key.pem\""),
                bad(
                        "a certificate that is not there",
                        b -> b.withTlsCertFile(Optional.of(Path.of("/nonexistent/cert.pem")))
                                .withTlsKeyFile(Optional.of(Path.of("/nonexistent/key.pem"))),
                        "tlsCertFile (--tls-cert): cannot read \"/nonexistent/cert.pem\"; give a readable PEM file"),
                bad(
                        "an Aliyun unit of 0",
                        b -> b.withAliyunUnitMib(0),
                        "aliyunUnitMib (--aliyun-unit-mib) must be >= 1, was 0; give the MiB in one unit of"
                                + " aliyun.com/gpu-mem, the node agents' --aliyun-unit-mib (1024: Aliyun's GiB)"),
                bad(
                        "a memory resource name with a blank",
                        b -> b.withGpuMemory("elasticgpu.io/gpu memory"),
                        "gpuMemory (--gpu-memory-resource) must be an extended resource name (domain/name), was"
                                + " \"elasticgpu.io/gpu memory\"; e.g. elasticgpu.io/gpu-memory"),
                bad(
                        "no whole-card resource name",
                        b -> b.withGpu(null),
                        "gpu (--gpu-resource) must be an extended resource name (domain/name), was none; e.g."
                                + " elasticgpu.io/gpu"),
                // 10 s is the least: kube-scheduler's bind follows its filter within seconds
                bad(
                        "stale reservations dropped after 9 s",
                        b -> b.withStaleReservation(Duration.ofSeconds(9)),
                        "staleReservation (--stale-reservation-age) must be at least PT10S, was PT9S; e.g. PT60S"),
                bad(
                        "the workload never refreshed",
                        b -> b.withWorkloadRefresh(Duration.ZERO),
                        "workloadRefresh (--workload-refresh-interval) must be at least PT1S, was PT0S; e.g. PT60S"),
                bad(
                        "decisions held for no time",
                        b -> b.withHold(Duration.ZERO),
                        "hold (--hold-period) must be at least PT1S, was PT0S; e.g. PT30S"),
                // NaN compares false with everything, so it is caught by "not >= 0"
                bad(
                        "a weight that is not a number",
                        b -> b.withPolicyWeight(Double.NaN),
                        "policyWeight and topologyWeight must be finite, >= 0 and not both 0, were NaN and 2.0;"
                                + " give --policy-weight or --topology-weight a positive weight (defaults 1 and 2)"),
                // MAX + MAX overflows to infinity
                bad(
                        "weights whose sum is infinite",
                        b -> b.withPolicyWeight(Double.MAX_VALUE).withTopologyWeight(Double.MAX_VALUE),
                        "policyWeight and topologyWeight must be finite, >= 0 and not both 0, were "
                                + "1.7976931348623157E308"
                                + " and 1.7976931348623157E308; give --policy-weight or --topology-weight a positive "
                                + "weight"
                                + " (defaults 1 and 2)"));
    }

    private static Arguments bad(String name, UnaryOperator<ExtenderConfig.Builder> change, String message) {
        return Arguments.of(name, change, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedNamingItsFlagValueAndFix(
            String name, UnaryOperator<ExtenderConfig.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(ExtenderConfig.builder()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void theDefaultsAreTheChartsAndTheBuilderRoundTrips() {
        ExtenderConfig d = ExtenderConfig.defaults();
        assertThat(d.listen()).hasToString("127.0.0.1:8888");
        assertThat(d.policy()).isEqualTo(PolicyName.ELASTIC_LOOKAHEAD);
        assertThat(d.metricsListen()).isEmpty();
        assertThat(d.units()).isEqualTo(io.elasticgpu.api.v1alpha1.PodAsks.Units.DEFAULT);
        assertThat(d.weights()).isEqualTo(io.elasticgpu.scheduler.decision.Decisions.Weights.DEFAULT);
        assertThat(d.decideInFilter()).isTrue();
        assertThat(d.toBuilder().build()).isEqualTo(d);
    }

    @Test
    void theVerbsAreServedOnlyOnLoopbackUnlessRemoteCallersAreAllowed() {
        assertThatThrownBy(() ->
                        ExtenderConfig.builder().withListen("0.0.0.0:8888").build())
                .hasMessageStartingWith("listen: 0.0.0.0:8888 is reachable from other hosts")
                .hasMessageContaining("127.0.0.1:8888", "--metrics-listen", "--allow-remote-callers");
        assertThat(ExtenderConfig.builder().withListen("localhost:8888").build().host())
                .isEqualTo("localhost");
        assertThat(ExtenderConfig.builder().withListen("::1:8888").build().port())
                .isEqualTo(8888);
        ExtenderConfig remote = ExtenderConfig.builder()
                .withListen("0.0.0.0:8888")
                .withAllowRemoteCallers(true)
                .build();
        assertThat(remote.host()).isEqualTo("0.0.0.0");
    }

    @Test
    void theMetricsAddressIsOptionalAndChecked() {
        assertThat(ExtenderConfig.defaults().metricsListen()).isEmpty();
        assertThat(ExtenderConfig.builder()
                        .withMetricsListen(Optional.of("0.0.0.0:9402"))
                        .build()
                        .metricsListen())
                .contains(new io.elasticgpu.http.ListenAddress("0.0.0.0", 9402));
        assertThatThrownBy(() -> ExtenderConfig.builder()
                        .withMetricsListen(Optional.of("9402"))
                        .build())
                .hasMessage("metricsListen (--metrics-listen) must be host:port, e.g. 127.0.0.1:8888, was \"9402\"");
    }

    @Test
    void aChangedConfigurationIsCheckedLikeANewOne() {
        ExtenderConfig c = ExtenderConfig.builder()
                .withPolicy(PolicyName.SPREAD)
                .withPolicyWeight(3.0)
                .withTopologyWeight(5.0)
                .withMemoryBlockMib(16)
                .build();
        assertThat(c.policy()).isEqualTo(PolicyName.SPREAD);
        assertThat(c.weights()).isEqualTo(new io.elasticgpu.scheduler.decision.Decisions.Weights(3, 5));
        assertThatThrownBy(() -> c.toBuilder().withMemoryBlockMib(-1).build())
                .hasMessageStartingWith("memoryBlockMib (--memory-block-mib) must be >= 1, was -1");
    }
}
