package io.elasticgpu.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.isolation.IsolationConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The node agent's configuration: the builder's defaults are the flags' defaults, and each bad setting its message. */
class AgentConfigTest {

    @Test
    void theBuildersDefaultsAreTheFlagsDefaults() {
        AgentConfig c = AgentConfig.builder("gpu-1").build();

        assertThat(c.nodeName()).isEqualTo("gpu-1");
        assertThat(c.pluginDir()).isEqualTo(Path.of("/var/lib/kubelet/device-plugins"));
        assertThat(c.podResourcesSocket()).isEqualTo(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"));
        assertThat(c.mode()).isEqualTo(AgentConfig.Mode.SLICES);
        assertThat(c.replicas()).isEqualTo(4);
        assertThat(c.units()).isEqualTo(PodAsks.Units.DEFAULT);
        assertThat(c.compatibility()).isTrue();
        assertThat(c.isolation()).isEqualTo(IsolationConfig.NONE);
        assertThat(c.health()).isEqualTo(HealthPolicy.DEFAULT);
        assertThat(c.usageEvery()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.api()).isEqualTo(AgentConfig.Api.DEVICE_PLUGIN);
        assertThat(c.dra()).isEqualTo(DraConfig.DEFAULT);
        assertThat(c.metricsListen())
                .as("no metrics server unless asked; egpu node-agent asks 0.0.0.0:9401")
                .isEmpty();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                bad(
                        "no node name",
                        "",
                        b -> b,
                        "node agent: the node name is empty; pass --node-name or set NODE_NAME (the DaemonSet sets "
                                + "it from spec.nodeName)"),
                bad(
                        "a blank node name",
                        "  ",
                        b -> b,
                        "node agent: the node name is empty; pass --node-name or set NODE_NAME (the DaemonSet sets "
                                + "it from spec.nodeName)"),
                // 99 ms is below the 100 ms NVML needs between two samples to mean anything
                bad(
                        "usage measured every 99 ms",
                        "gpu-1",
                        b -> b.withUsageEvery(Duration.ofMillis(99)),
                        "node agent: --usage-interval must be 0 (off) or at least 100 ms, was PT0.099S; e.g. PT10S, "
                                + "or PT0S to measure nothing"),
                bad(
                        "usage measured every -1 s",
                        "gpu-1",
                        b -> b.withUsageEvery(Duration.ofSeconds(-1)),
                        "node agent: --usage-interval must be 0 (off) or at least 100 ms, was PT-1S; e.g. PT10S, or "
                                + "PT0S to measure nothing"),
                bad(
                        "no replica per card",
                        "gpu-1",
                        b -> b.withReplicas(0),
                        "node agent: --replicas must be 1..1000, was 0; e.g. 4 virtual devices per card"),
                bad(
                        "1001 replicas per card",
                        "gpu-1",
                        b -> b.withReplicas(1001),
                        "node agent: --replicas must be 1..1000, was 1001; e.g. 4 virtual devices per card"),
                bad(
                        "a memory block of 0 MiB",
                        "gpu-1",
                        b -> b.withMemoryBlockMib(0),
                        "node agent: --memory-block-mib must be >= 1, was 0; give the extender's memoryBlockMib "
                                + "(default 1)"),
                bad(
                        "an Aliyun unit of -1 MiB",
                        "gpu-1",
                        b -> b.withAliyunUnitMib(-1),
                        "node agent: --aliyun-unit-mib must be >= 1, was -1; give the extender's aliyunUnitMib "
                                + "(default 1024, Aliyun's GiB)"));
    }

    private static Arguments bad(String name, String node, UnaryOperator<AgentConfig.Builder> change, String message) {
        return Arguments.of(name, node, change, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedNamingItsFlagValueAndFix(
            String name, String node, UnaryOperator<AgentConfig.Builder> change, String message) {
        assertThatThrownBy(() -> change.apply(AgentConfig.builder(node)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @ParameterizedTest(name = "--mode {0}")
    @CsvSource({"slices, SLICES", "replicas, REPLICAS"})
    void theModeIsReadAsTheFlagWritesIt(String flag, AgentConfig.Mode mode) {
        assertThat(AgentConfig.Mode.parse(flag)).isEqualTo(mode);
    }

    @Test
    void anUnknownModeIsRefusedNamingTheFlagAndTheChoices() {
        assertThatThrownBy(() -> AgentConfig.Mode.parse("Slices"))
                .hasMessage("--mode must be slices or replicas, was Slices");
    }

    @Test
    void mpsHoldsSlicesSoADevicePluginAgentWithReplicasIsRefusedAndADraAgentIsNot() {
        IsolationConfig mps = IsolationConfig.mps(IsolationConfig.DEFAULT_PROGRAM, IsolationConfig.DEFAULT_ROOT);
        AgentConfig.Builder replicas =
                AgentConfig.builder("gpu-1").withMode(AgentConfig.Mode.REPLICAS).withIsolation(mps);

        assertThatThrownBy(replicas::build)
                .hasMessage("node agent: --isolation mps holds slices to their shares; it needs"
                        + " --mode slices (replicas have no share to hold)");
        assertThat(replicas.withApi(AgentConfig.Api.DRA).build().isolation()).isEqualTo(mps);
    }

    @ParameterizedTest(name = "--api {0}")
    @CsvSource({"device-plugin, DEVICE_PLUGIN", "dra, DRA"})
    void theApiIsReadAsTheFlagWritesIt(String flag, AgentConfig.Api api) {
        assertThat(AgentConfig.Api.parse(flag)).isEqualTo(api);
    }

    @ParameterizedTest(name = "--api {0}")
    @CsvSource({"csi", "none", "DRA"})
    void anyOtherApiIsRefusedNamingTheFlagAndTheChoices(String flag) {
        // NONE, the local cluster's fake nodes without a kubelet, is not a value of --api
        assertThatThrownBy(() -> AgentConfig.Api.parse(flag))
                .hasMessage("--api must be device-plugin or dra, was " + flag);
    }
}
