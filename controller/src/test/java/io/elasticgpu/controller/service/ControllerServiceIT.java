package io.elasticgpu.controller.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ControllerService#start}, the one way a controller replica starts (egpu controller and the local cluster's
 * demo), in this process against an API server that does not answer: the dashboard serves at once and is not ready,
 * the replica campaigns for the Lease without leading, and {@link ControllerService#close} gives the port back.
 */
class ControllerServiceIT {

    private final HttpClient http = HttpClient.newHttpClient();
    private KubernetesClient client;

    @BeforeEach
    void unansweredApiServer() throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + closed)
                        .withRequestTimeout(1_000)
                        .withConnectionTimeout(1_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Test
    void aReplicaServesItsDashboardAtOnceCampaignsWithoutLeadingAndGivesThePortBackWhenClosed() throws Exception {
        ControllerConfig config = ControllerConfig.builder()
                .withHttpListen(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0))
                .build();

        ControllerService service = ControllerService.start(client, config);
        int port = service.dashboardPort();
        try {
            assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
            assertThat(get(port, "/readyz").statusCode())
                    .as("no node or pod listed yet")
                    .isEqualTo(503);
            assertThat(get(port, "/metrics").body()).contains("egpu_controller_leader 0.0");
            assertThat(service.leads()).isFalse();
            assertThat(service.webhook()).isEmpty();
            assertThat(service.lost()).isNotDone();
        } finally {
            service.close();
        }

        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress("127.0.0.1", port));
        }
        assertThat(service.lost()).as("the election ended with the service").isDone();
    }

    @Test
    void aTakenDashboardPortStopsTheReplicaSayingWhichFlagToChange() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ControllerConfig config = ControllerConfig.builder()
                    .withHttpListen(new io.elasticgpu.http.ListenAddress("127.0.0.1", taken.getLocalPort()))
                    .build();

            assertThatThrownBy(() -> ControllerService.start(client, config))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("--http-listen");
        }
    }

    private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
