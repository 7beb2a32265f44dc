package io.elasticgpu.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExtenderConfigTest {

    @TempDir
    Path dir;

    @Test
    void aFileOverridesTheDefaults() throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "policy: binpack\nlisten: 127.0.0.2:9443\nmemoryBlockMib: 256\n");
        ExtenderConfig c = ExtenderConfig.load(file).validate();
        assertThat(c.policy()).isEqualTo("binpack");
        assertThat(c.host()).isEqualTo("127.0.0.2");
        assertThat(c.port()).isEqualTo(9443);
        assertThat(c.units().memoryBlockMib()).isEqualTo(256);
        assertThat(c.ledgerNamespace()).isEqualTo("elastic-gpu-system");
    }

    @Test
    void unknownKeysAreNamedWithTheKnownOnes() throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "polcy: binpack\n");
        assertThatThrownBy(() -> ExtenderConfig.load(file)).hasMessageStartingWith(file + ": unknown key \"polcy\"; known keys: ")
                .hasMessageContaining("policy");
    }

    @Test
    void badValuesSayWhatToChange() {
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("policy", "tetris")).validate())
                .hasMessageStartingWith("unknown policy \"tetris\"; choose one of: elastic, binpack");
        assertThatThrownBy(() -> ExtenderConfig.defaults().withListen("8888").validate())
                .hasMessage("listen must be host:port, e.g. 127.0.0.1:8888, was \"8888\"");
        assertThatThrownBy(() -> ExtenderConfig.defaults().withListen("127.0.0.1:99999").validate())
                .hasMessage("listen: the port must be 0..65535, was \"99999\"");
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("tlsCertFile", "cert.pem")).validate())
                .hasMessage("tlsCertFile and tlsKeyFile go together; give both or neither");
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("memoryBlockMib", 0)).validate())
                .hasMessage("memoryBlockMib and aliyunUnitMib must be >= 1, were 0 and 1024");
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("ledgerNamespace", "Bad_NS")).validate())
                .hasMessage("ledgerNamespace must be a namespace name, was \"Bad_NS\"");
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("policyWeight", 0, "topologyWeight", 0)).validate())
                .hasMessage("policyWeight and topologyWeight must be finite, >= 0 and not both 0, were 0.0 and 0.0");
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("topologyWeight", -1)).validate())
                .hasMessageStartingWith("policyWeight and topologyWeight must be finite, >= 0");
    }

    @Test
    void theVerbsAreServedOnlyOnLoopbackUnlessRemoteCallersAreAllowed() {
        assertThatThrownBy(() -> ExtenderConfig.defaults().withListen("0.0.0.0:8888").validate())
                .hasMessageStartingWith("listen: 0.0.0.0:8888 is reachable from other hosts")
                .hasMessageContaining("127.0.0.1:8888", "--metrics-listen", "--allow-remote-callers");
        assertThat(ExtenderConfig.defaults().withListen("localhost:8888").validate().host()).isEqualTo("localhost");
        assertThat(ExtenderConfig.defaults().withListen("::1:8888").validate().port())
                .isEqualTo(8888);
        ExtenderConfig remote = ExtenderConfig.defaults().with(Map.of("listen", "0.0.0.0:8888", "allowRemoteCallers", true));
        assertThat(remote.validate().host()).isEqualTo("0.0.0.0");
    }

    @Test
    void theMetricsAddressIsOptionalAndChecked() {
        assertThat(ExtenderConfig.defaults().validate().metricsAddress()).isEmpty();
        assertThat(ExtenderConfig.defaults().with(Map.of("metricsListen", "0.0.0.0:9402")).validate().metricsAddress())
                .contains(new Address("0.0.0.0", 9402));
        assertThatThrownBy(() -> ExtenderConfig.defaults().with(Map.of("metricsListen", "9402")).validate())
                .hasMessage("metricsListen must be host:port, e.g. 127.0.0.1:8888, was \"9402\"");
    }

    @Test
    void flagsOverrideTheFileAndAreCheckedLikeIt() throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "policy: binpack\ntopologyWeight: 5\n");
        ExtenderConfig c = ExtenderConfig.load(file).with(Map.of("policy", "spread", "policyWeight", 3.0)).validate();
        assertThat(c.policy()).isEqualTo("spread");
        assertThat(c.weights()).isEqualTo(new io.elasticgpu.scheduler.decision.Decisions.Weights(3, 5));
        assertThatThrownBy(() -> c.with(Map.of("memoryBlockMib", "lots")))
                .hasMessageStartingWith("flags: ").hasMessageContaining("lots");
    }
}
