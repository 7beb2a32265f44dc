package io.elasticgpu.scheduler.extender;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK's HTTP server, one virtual thread per request, serving {@code POST /filter}, {@code /prioritize} and
 * {@code /bind}, and {@code GET /healthz}, {@code /readyz} (caches synced) and {@code /metrics}.
 */
public final class ExtenderServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final HttpServer server;
    private final ExecutorService executor;
    private final Verbs verbs;

    private ExtenderServer(HttpServer server, ExecutorService executor, Verbs verbs) {
        this.server = server;
        this.executor = executor;
        this.verbs = verbs;
    }

    static ExtenderServer start(ExtenderConfig config, Verbs verbs, ExtenderMetrics metrics, BooleanSupplier ready) {
        // Without it every response waits for the peer's delayed ACK, ~40 ms (Nagle).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            InetSocketAddress address = new InetSocketAddress(config.host(), config.port());
            HttpServer server;
            if (config.tlsCertFile() != null) {
                HttpsServer https = HttpsServer.create(address, 1024);
                https.setHttpsConfigurator(new HttpsConfigurator(Tls.server(Path.of(config.tlsCertFile()), Path.of(config.tlsKeyFile()))));
                server = https;
            } else {
                server = HttpServer.create(address, 1024);
            }
            server.createContext("/filter", post("filter", metrics, body -> {
                Wire.ExtenderFilterResult r = verbs.filter(JSON.readValue(body, Wire.ExtenderArgs.class));
                return new Answer(r, r.error() == null || r.error().isEmpty() ? "ok" : "error");
            }));
            server.createContext("/prioritize", post("prioritize", metrics,
                    body -> new Answer(verbs.prioritize(JSON.readValue(body, Wire.ExtenderArgs.class)), "ok")));
            server.createContext("/bind", post("bind", metrics, body -> {
                Wire.ExtenderBindingResult r = verbs.bind(JSON.readValue(body, Wire.ExtenderBindingArgs.class));
                return new Answer(r, r.error() == null ? "bound" : "error");
            }));
            server.createContext("/healthz", get(exchange -> reply(exchange, 200, "text/plain", "ok")));
            server.createContext("/readyz", get(exchange -> reply(exchange, ready.getAsBoolean() ? 200 : 503, "text/plain",
                    ready.getAsBoolean() ? "ok" : "caches not synced")));
            server.createContext("/metrics", get(exchange -> {
                exchange.getResponseHeaders().set("Content-Type", metrics.contentType());
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = exchange.getResponseBody()) {
                    metrics.write(out);
                }
            }));
            ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
            server.setExecutor(executor);
            server.start();
            return new ExtenderServer(server, executor, verbs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on %s: %s; is the port taken?".formatted(config.listen(), e.getMessage()), e);
        }
    }

    /** The port actually bound: the one configured, or the one chosen for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        verbs.close();
    }

    private record Answer(Object body, String result) {
    }

    @FunctionalInterface
    private interface Call {
        Answer answer(byte[] body) throws IOException;
    }

    private static HttpHandler post(String verb, ExtenderMetrics metrics, Call call) {
        return exchange -> {
            long start = System.nanoTime();
            String result = "bad_request";
            try (exchange) {
                if (!"POST".equals(exchange.getRequestMethod())) {
                    reply(exchange, 405, "text/plain", verb + " takes POST");
                    return;
                }
                Answer answer;
                try {
                    answer = call.answer(exchange.getRequestBody().readAllBytes());
                } catch (JsonProcessingException e) {
                    reply(exchange, 400, "text/plain", "malformed %s request: %s".formatted(verb, e.getOriginalMessage()));
                    return;
                }
                result = answer.result();
                reply(exchange, 200, "application/json", JSON.writeValueAsBytes(answer.body()));
            } catch (RuntimeException e) {
                result = "internal_error";
                LOG.error("verb={} failed", verb, e);
                reply(exchange, 500, "text/plain", verb + " failed: " + e);
            } finally {
                metrics.observe(verb, start, result);
            }
        };
    }

    private static HttpHandler get(HttpHandler handler) {
        return exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod())) {
                    reply(exchange, 405, "text/plain", "GET only");
                    return;
                }
                handler.handle(exchange);
            }
        };
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        reply(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void reply(HttpExchange exchange, int status, String contentType, byte[] bytes) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
