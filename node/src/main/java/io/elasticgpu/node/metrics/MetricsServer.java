package io.elasticgpu.node.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The node agent's HTTP server: {@code GET /metrics} (Prometheus text) and {@code GET /healthz} ("ok" while the
 * process runs: kubelet's absence is not the agent's fault, and restarting it would not bring kubelet back). The
 * JDK's server, one virtual thread per request.
 */
public final class MetricsServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** @throws UncheckedIOException when the address cannot be bound, saying which */
    public static MetricsServer start(MetricsAddress address, AgentMetrics metrics) {
        // Without it every response waits for the peer's delayed ACK, ~40 ms (Nagle).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 64);
        } catch (IOException e) {
            throw new UncheckedIOException(("cannot serve metrics on %s: %s; is the port taken? Change --metrics-listen "
                    + "or turn it off with --metrics-listen %s").formatted(address, e.getMessage(), MetricsAddress.OFF), e);
        }
        server.createContext("/metrics", get(exchange -> {
            exchange.getResponseHeaders().set("Content-Type", metrics.contentType());
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                metrics.write(out);
            }
        }));
        server.createContext("/healthz", get(exchange -> reply(exchange, 200, "ok")));
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.start();
        return new MetricsServer(server, executor);
    }

    /** The port bound: the one asked for, or the one chosen for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private static HttpHandler get(HttpHandler handler) {
        return exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod())) {
                    reply(exchange, 405, "GET only");
                    return;
                }
                handler.handle(exchange);
            }
        };
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
