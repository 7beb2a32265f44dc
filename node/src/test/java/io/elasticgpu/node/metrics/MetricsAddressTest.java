package io.elasticgpu.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MetricsAddressTest {

    @Test
    void hostAndPortOrOff() {
        assertThat(MetricsAddress.parse("0.0.0.0:9401")).contains(new MetricsAddress("0.0.0.0", 9401));
        assertThat(MetricsAddress.parse("[::]:9401")).contains(new MetricsAddress("[::]", 9401));
        assertThat(MetricsAddress.parse("off")).isEmpty();
    }

    @Test
    void anythingElseSaysWhatToWrite() {
        for (String bad : new String[] {"9401", ":9401", "host:", "host:port", "host:70000", "none"}) {
            assertThatThrownBy(() -> MetricsAddress.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--metrics-listen must be HOST:PORT with a port 0..65535 (e.g. 0.0.0.0:9401) or off to "
                            + "serve no metrics, was \"%s\"".formatted(bad));
        }
    }
}
