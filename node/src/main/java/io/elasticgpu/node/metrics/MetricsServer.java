package io.elasticgpu.node.metrics;

import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpResponse;
import io.elasticgpu.http.ListenAddress;
import java.io.UncheckedIOException;

/**
 * The node agent's HTTP server: {@code GET /metrics} (Prometheus) and {@code GET /healthz} ("ok" while the process
 * runs: kubelet's absence is not the agent's fault, and restarting it would not bring kubelet back).
 */
public final class MetricsServer implements AutoCloseable {

    private final HttpEndpoint endpoint;

    private MetricsServer(HttpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** @throws UncheckedIOException when the address cannot be bound, saying which */
    public static MetricsServer start(ListenAddress address, AgentMetrics metrics) {
        return new MetricsServer(HttpEndpoint.on(address.socketAddress())
                .get("/healthz", r -> HttpResponse.text(200, "ok"))
                .metrics(metrics.registry())
                .start("Change --metrics-listen or turn it off with --metrics-listen " + ListenAddress.OFF + "."));
    }

    /** The port bound: the one asked for, or the one chosen for port 0. */
    public int port() {
        return endpoint.port();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
