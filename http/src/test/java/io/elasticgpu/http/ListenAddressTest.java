package io.elasticgpu.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** One type for every address a component serves on: parsed with the setting's name, or off where it may be. */
class ListenAddressTest {

    @Test
    void hostAndPortTheLastColonSplits() {
        assertThat(ListenAddress.parse("listen", "0.0.0.0:9401")).isEqualTo(new ListenAddress("0.0.0.0", 9401));
        assertThat(ListenAddress.parse("listen", "[::]:9401")).isEqualTo(new ListenAddress("[::]", 9401));
        assertThat(ListenAddress.parse("listen", "::1:8888")).isEqualTo(new ListenAddress("::1", 8888));
        assertThat(new ListenAddress("127.0.0.1", 0)).hasToString("127.0.0.1:0");
        assertThat(new ListenAddress("127.0.0.1", 8080).socketAddress().getPort())
                .isEqualTo(8080);
    }

    @Test
    void anythingElseNamesTheSettingAndShowsTheValue() {
        for (String bad : new String[] {"9401", ":9401", "none"}) {
            assertThatThrownBy(() -> ListenAddress.parse("metricsListen (--metrics-listen)", bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("metricsListen (--metrics-listen) must be host:port, e.g. 127.0.0.1:8888, was \"%s\""
                            .formatted(bad));
        }
        for (String bad : new String[] {"host:", "host:port", "host:70000"}) {
            assertThatThrownBy(() -> ListenAddress.parse("listen (--listen)", bad))
                    .as(bad)
                    .hasMessageStartingWith("listen (--listen): the port must be 0..65535, was \"");
        }
        assertThatThrownBy(() -> new ListenAddress(" ", 80)).hasMessageContaining("needs a host");
        assertThatThrownBy(() -> new ListenAddress("a", -1)).hasMessage("the port of a must be 0..65535, was -1");
    }

    @Test
    void offServesNothingWhereASettingMayBeTurnedOff() {
        assertThat(ListenAddress.parseOrOff("metricsListen", "off")).isEmpty();
        assertThat(ListenAddress.parseOrOff("metricsListen", "0.0.0.0:9401"))
                .contains(new ListenAddress("0.0.0.0", 9401));
        assertThatThrownBy(() -> ListenAddress.parseOrOff("metricsListen (--metrics-listen)", "9401"))
                .hasMessage("metricsListen (--metrics-listen) must be host:port, e.g. 127.0.0.1:8888, was \"9401\","
                        + " or off to serve nothing");
    }

    @Test
    void loopbackIsWhatOnlyThisHostReaches() {
        assertThat(new ListenAddress("127.0.0.1", 1).loopback()).isTrue();
        assertThat(new ListenAddress("localhost", 1).loopback()).isTrue();
        assertThat(new ListenAddress("0.0.0.0", 1).loopback()).isFalse();
    }
}
