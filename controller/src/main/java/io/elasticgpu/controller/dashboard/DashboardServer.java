package io.elasticgpu.controller.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.ViewFormat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP, one virtual thread per request: {@code GET /ui/} (the dashboard), {@code /api/v1/cluster} (the view it
 * draws, as {@code egpu inspect -o json} prints it), {@code /metrics}, {@code /healthz} and {@code /readyz}. Read-only;
 * anything but GET is refused with 405.
 */
public final class DashboardServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    /** The only files {@code /ui/} serves, so that no request path reaches anything else on the classpath. */
    private static final Map<String, String> FILES = Map.of(
            "", "text/html; charset=utf-8",
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "style.css", "text/css; charset=utf-8");

    private final HttpServer server;
    private final ExecutorService executor;

    private DashboardServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Listens on {@code address} (port 0: any free port) and serves at once.
     *
     * @param ready answers {@code /readyz}: the view is complete once the informers have synced
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static DashboardServer start(InetSocketAddress address, Supplier<ClusterView> view, BooleanSupplier ready,
                                        ControllerMetrics metrics) {
        // Without it every response waits for the peer's delayed ACK, ~40 ms (Nagle).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server;
        try {
            server = HttpServer.create(address, 128);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on %s: %s; is the port taken? Change --http-listen"
                    .formatted(address, e.getMessage()), e);
        }
        server.createContext("/", get(DashboardServer::root));
        server.createContext("/ui", get(DashboardServer::file));
        server.createContext("/api/v1/cluster", get(x -> reply(x, 200, "application/json",
                ViewFormat.JSON.render(view.get()).getBytes(StandardCharsets.UTF_8))));
        server.createContext("/healthz", get(x -> text(x, 200, "ok")));
        server.createContext("/readyz", get(x -> text(x, ready.getAsBoolean() ? 200 : 503,
                ready.getAsBoolean() ? "ok" : "nodes and pods not listed yet")));
        server.createContext("/metrics", get(x -> {
            x.getResponseHeaders().set("Content-Type", metrics.contentType());
            x.sendResponseHeaders(200, 0);
            try (OutputStream out = x.getResponseBody()) {
                metrics.write(out);
            }
        }));
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.start();
        LOG.info("dashboard serving http://{}:{}/ui/", address.getHostString(), server.getAddress().getPort());
        return new DashboardServer(server, executor);
    }

    /** The port actually bound: the one asked for, or the one chosen for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    private static void root(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().equals("/")) {
            text(exchange, 404, "not found; the dashboard is at /ui/");
            return;
        }
        redirect(exchange);
    }

    private static void file(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/ui")) {
            redirect(exchange);         // relative links in the page need the trailing slash
            return;
        }
        String name = path.substring("/ui/".length());
        String type = FILES.get(name);
        if (type == null) {
            text(exchange, 404, "not found: " + path);
            return;
        }
        try (InputStream in = DashboardServer.class.getResourceAsStream("ui/" + (name.isEmpty() ? "index.html" : name))) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks the dashboard file " + name);
            }
            reply(exchange, 200, type, in.readAllBytes());
        }
    }

    private static void redirect(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Location", "/ui/");
        exchange.sendResponseHeaders(302, -1);
    }

    private static void text(HttpExchange exchange, int status, String body) throws IOException {
        reply(exchange, status, "text/plain; charset=utf-8", (body + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void reply(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @FunctionalInterface
    private interface Get {
        void handle(HttpExchange exchange) throws IOException;
    }

    private static HttpHandler get(Get handler) {
        return exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod())) {
                    exchange.getResponseHeaders().set("Allow", "GET");
                    text(exchange, 405, exchange.getRequestMethod() + " is not allowed; this server is read-only");
                    return;
                }
                handler.handle(exchange);
            } catch (RuntimeException e) {
                LOG.warn("request {} failed", exchange.getRequestURI(), e);
                text(exchange, 500, "internal error: " + e.getMessage());
            }
        };
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
