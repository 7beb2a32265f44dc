package io.elasticgpu.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ExtenderService#start}, the one way the extender starts (egpu scheduler and the local cluster's demo), in
 * this process against an API server that does not answer: it serves at once, is not ready until its informers have
 * listed the cluster, and {@link ExtenderService#close} gives its ports back.
 */
class ExtenderServiceIT {

    private final HttpClient http = HttpClient.newHttpClient();
    private KubernetesClient client;

    @AfterEach
    void closeClient() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aStartedServiceServesAtOnceIsNotReadyWithoutTheApiAndGivesItsPortsBackWhenClosed() throws Exception {
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + closedPort())
                        .withRequestTimeout(1_000)
                        .withConnectionTimeout(1_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
        ExtenderConfig config = ExtenderConfig.builder()
                .withListen("127.0.0.1:0")
                .withMetricsListen(java.util.Optional.of("127.0.0.1:0"))
                .build();

        ExtenderService service = ExtenderService.start(client, config);
        int port = service.port();
        try {
            assertThat(port).isPositive();
            assertThat(get(port, "/healthz").body()).isEqualTo("ok");
            assertThat(get(port, "/readyz").statusCode())
                    .as("no API server, so no list yet")
                    .isEqualTo(503);
            assertThat(service.ready()).isFalse();
        } finally {
            service.close();
        }

        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress("127.0.0.1", port));
            assertThat(again.getLocalPort()).as("the verbs' port, free again").isEqualTo(port);
        }
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A port nothing listens on (bound, then let go). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
