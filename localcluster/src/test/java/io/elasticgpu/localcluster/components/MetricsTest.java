package io.elasticgpu.localcluster.components;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MetricsTest {

    private static final String TEXT = """
            # HELP egpu_extender_binds_held_total Binds held back.
            # TYPE egpu_extender_binds_held_total counter
            egpu_extender_binds_held_total 3.0
            egpu_extender_binds_held_total_created 1.7E9
            egpu_extender_decisions_total{result="bound",verb="bind"} 5.0
            egpu_extender_decisions_total{result="bound",verb="bind",replica="b"} 2.0
            egpu_extender_decisions_total{result="refused",verb="bind"} 7.0
            """;

    @Test
    void aSeriesIsSummedOverTheLinesItStartsAndNoOther() {
        assertThat(Metrics.sum(TEXT, "egpu_extender_binds_held_total ")).isEqualTo(3.0);
        assertThat(Metrics.sum(TEXT, "egpu_extender_decisions_total{result=\"bound\",verb=\"bind\""))
                .isEqualTo(7.0);
        assertThat(Metrics.sum(TEXT, "egpu_extender_decisions_total{")).isEqualTo(14.0);
        assertThat(Metrics.sum(TEXT, "egpu_missing ")).isZero();
    }

    @Test
    void scrapeReadsTheMetricsPathAndSaysWhatAnsweredOtherwise() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/metrics", x -> {
            byte[] body = TEXT.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        try {
            assertThat(Metrics.scrape(base)).isEqualTo(TEXT);
            assertThatThrownBy(() -> Metrics.scrape(base + "/nothing"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(base + "/nothing/metrics answered 404");
        } finally {
            server.stop(0);
        }
        assertThatThrownBy(() -> Metrics.scrape(base))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read " + base + "/metrics");
    }
}
