package io.elasticgpu.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.elasticgpu.http.BadRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * The JDK's {@link HttpServer} with no executor: each request is handled on the server's one dispatcher thread
 * instead of being handed to a new virtual thread as {@link io.elasticgpu.http.HttpEndpoint} does. The same echo
 * ({@link EchoAnswer#filter}), headers and TCP_NODELAY as {@link EchoExtender}, so that only the executor differs.
 * Not a design for a product server (one slow request holds every other caller), but the floor of the JDK stack.
 */
final class JdkDispatcherEcho implements Echo {

    private final HttpServer server;

    private JdkDispatcherEcho(HttpServer server) {
        this.server = server;
    }

    static JdkDispatcherEcho start() {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
            server.createContext("/filter", JdkDispatcherEcho::handle);
            server.setExecutor(null);
            server.start();
            return new JdkDispatcherEcho(server);
        } catch (IOException e) {
            throw new UncheckedIOException("The benchmark takes any free port; is the machine out of them?", e);
        }
    }

    private static void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readNBytes(EchoAnswer.MAX_BODY_BYTES + 1);
            int status = 200;
            String type = EchoAnswer.CONTENT_TYPE;
            byte[] answer;
            try {
                if (body.length > EchoAnswer.MAX_BODY_BYTES) {
                    throw new BadRequest(
                            413,
                            "the request body is larger than this endpoint's limit of %d bytes"
                                    .formatted(EchoAnswer.MAX_BODY_BYTES));
                }
                answer = EchoAnswer.filter(body);
            } catch (BadRequest e) {
                status = e.status();
                type = EchoAnswer.ERROR_CONTENT_TYPE;
                answer = EchoAnswer.error(e);
            }
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(status, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    @Override
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
