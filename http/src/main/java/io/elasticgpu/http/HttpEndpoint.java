package io.elasticgpu.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK's HTTP(S) server, one virtual thread per request, with routes by method and path. Every request gets an
 * answer: an unknown path 404, a wrong method 405 (with {@code Allow}), a body over the route's limit 413, a
 * {@link BadRequest} its 4xx, and only an unexpected exception (our bug) a 500, logged. Nothing a caller sends can
 * stop the server.
 */
public final class HttpEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);
    /**
     * A body over the limit is read and dropped up to this much, so that a caller still sending gets to read the 413
     * instead of a reset connection; past it the connection is closed. Twice the largest limit any route has.
     */
    static final long DRAIN_LIMIT = 64L << 20;

    private final HttpServer server;
    private final ExecutorService executor;

    private HttpEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static Builder on(InetSocketAddress address) {
        return new Builder(address);
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

    /** Collects the routes; {@link #start(String)} binds and serves. */
    public static final class Builder {
        private final InetSocketAddress address;
        private final List<Route> routes = new ArrayList<>();
        private SSLContext tls;
        private MetricsHandler metrics;

        private Builder(InetSocketAddress address) {
            this.address = address;
        }

        public Builder tls(SSLContext context) {
            this.tls = context;
            return this;
        }

        public Builder get(String path, Route.Handler handler) {
            return route(new Route("GET", path, false, 0, handler, null));
        }

        public Builder post(String path, int maxBodyBytes, Route.Handler handler, Route.Observer observer) {
            return route(new Route("POST", path, false, maxBodyBytes, handler, observer));
        }

        public Builder route(Route route) {
            routes.add(route);
            return this;
        }

        /** {@code GET /healthz} (the process serves) and {@code GET /readyz} (503 with the reason until ready). */
        public Builder health(BooleanSupplier ready, String notReady) {
            get("/healthz", r -> HttpResponse.text(200, "ok"));
            return get(
                    "/readyz",
                    r -> ready.getAsBoolean() ? HttpResponse.text(200, "ok") : HttpResponse.text(503, notReady));
        }

        /** {@code GET /metrics} in every format Prometheus asks for, by the library's own handler. */
        public Builder metrics(PrometheusRegistry registry) {
            this.metrics = new MetricsHandler(registry);
            return route(new Route("GET", "/metrics", false, 0, null, null));
        }

        /**
         * @param hint what to change when the address cannot be bound, e.g. "Change --listen"
         * @throws UncheckedIOException when the address cannot be bound, saying which and what to change
         */
        public HttpEndpoint start(String hint) {
            // Without it every response waits for the peer's delayed ACK, ~40 ms (Nagle).
            System.setProperty("sun.net.httpserver.nodelay", "true");
            HttpServer server;
            try {
                if (tls != null) {
                    HttpsServer https = HttpsServer.create(address, 1024);
                    https.setHttpsConfigurator(new HttpsConfigurator(tls));
                    server = https;
                } else {
                    server = HttpServer.create(address, 1024);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot listen on %s:%d: %s; is the port taken? %s"
                                .formatted(address.getHostString(), address.getPort(), e.getMessage(), hint),
                        e);
            }
            Dispatch dispatch = new Dispatch(List.copyOf(routes), metrics);
            server.createContext("/", dispatch::handle);
            ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
            server.setExecutor(executor);
            server.start();
            return new HttpEndpoint(server, executor);
        }
    }

    private record Dispatch(List<Route> routes, MetricsHandler metrics) {

        void handle(HttpExchange exchange) {
            try (exchange) {
                long start = System.nanoTime();
                String path = exchange.getRequestURI().getPath();
                List<Route> onPath =
                        routes.stream().filter(r -> r.matches(path)).toList();
                Route route = onPath.stream()
                        .filter(r -> r.method().equals(exchange.getRequestMethod()))
                        .findFirst()
                        .orElse(null);
                if (route == null) {
                    drain(exchange.getRequestBody());
                    write(
                            exchange,
                            onPath.isEmpty() ? notFound(path) : notAllowed(exchange.getRequestMethod(), onPath));
                    return;
                }
                if (route.handler() == null) { // the Prometheus route: the library reads and answers the exchange
                    metrics.handle(exchange);
                    return;
                }
                HttpResponse response = answer(exchange, route);
                if (route.observer() != null) { // before the answer leaves: a caller that has it sees the call counted
                    route.observer().observe(start, response);
                }
                write(exchange, response);
            } catch (IOException e) {
                LOG.debug(
                        "{} {}: the connection failed: {}",
                        exchange.getRequestMethod(),
                        exchange.getRequestURI(),
                        e.toString());
            }
        }

        private HttpResponse answer(HttpExchange exchange, Route route) throws IOException {
            try {
                byte[] body = readBody(exchange, route.maxBodyBytes());
                return route.handler()
                        .handle(new HttpRequest(
                                exchange.getRequestMethod(),
                                exchange.getRequestURI(),
                                exchange.getRequestHeaders(),
                                body));
            } catch (BadRequest e) {
                return HttpResponse.text(e.status(), e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("{} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                return HttpResponse.text(500, "internal error (a bug in Elastic GPU; please report it): " + e);
            }
        }

        private HttpResponse notFound(String path) {
            TreeSet<String> paths = new TreeSet<>();
            routes.forEach(r -> paths.add(r.path() + (r.prefix() ? "…" : "")));
            return HttpResponse.text(
                    404, "no such path: %s; this server serves %s".formatted(path, String.join(", ", paths)));
        }

        private static HttpResponse notAllowed(String method, List<Route> onPath) {
            String allow = String.join(
                    ", ", onPath.stream().map(Route::method).distinct().toList());
            return HttpResponse.text(405, "%s is not allowed here; use %s".formatted(method, allow))
                    .withHeader("Allow", allow);
        }
    }

    /** The body, at most {@code max} bytes; over that a 413 that names the limit, after dropping the rest. */
    static byte[] readBody(HttpExchange exchange, int max) throws IOException {
        InputStream in = exchange.getRequestBody();
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null && length.matches("\\d{1,18}") && Long.parseLong(length) > max) {
            drain(in);
            throw tooLarge(max);
        }
        byte[] body = in.readNBytes(max + 1);
        if (body.length > max) {
            drain(in);
            throw tooLarge(max);
        }
        return body;
    }

    private static BadRequest tooLarge(int max) {
        return new BadRequest(
                413,
                max == 0
                        ? "this request takes no body"
                        : "the request body is larger than this endpoint's limit of %d bytes".formatted(max));
    }

    private static void drain(InputStream in) throws IOException {
        long dropped = 0;
        byte[] buffer = new byte[64 * 1024];
        int n;
        while (dropped < DRAIN_LIMIT && (n = in.read(buffer)) > 0) {
            dropped += n;
        }
    }

    private static void write(HttpExchange exchange, HttpResponse response) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", response.contentType());
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        response.headers().forEach(exchange.getResponseHeaders()::set);
        byte[] body = response.body();
        exchange.sendResponseHeaders(response.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
