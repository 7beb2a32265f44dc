package io.elasticgpu.bench;

import io.elasticgpu.http.BadRequest;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The contender stack: the echo ({@link EchoAnswer#filter}) on Helidon SE's WebServer, which runs each connection on
 * a virtual thread and parses HTTP/1.1 itself (no {@code com.sun.net.httpserver}). Loopback, any free port,
 * TCP_NODELAY and the same body limit and answers as {@link EchoExtender}, so that only the stack differs.
 */
final class HelidonEcho implements Echo {

    /** Helidon logs through java.util.logging; the printout wants only its warnings. Held, as JUL's are weak. */
    private static final Logger HELIDON_LOG = Logger.getLogger("io.helidon");

    private final WebServer server;

    private HelidonEcho(WebServer server) {
        this.server = server;
    }

    static HelidonEcho start() {
        HELIDON_LOG.setLevel(Level.WARNING);
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .maxPayloadSize(EchoAnswer.MAX_BODY_BYTES)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(r -> r.post("/filter", HelidonEcho::filter))
                .build()
                .start();
        return new HelidonEcho(server);
    }

    private static void filter(ServerRequest request, ServerResponse response) throws IOException {
        byte[] body = request.content().inputStream().readAllBytes();
        byte[] answer;
        try {
            answer = EchoAnswer.filter(body);
        } catch (BadRequest e) {
            response.status(e.status())
                    .header(HeaderNames.CONTENT_TYPE, EchoAnswer.ERROR_CONTENT_TYPE)
                    .header(HeaderNames.CACHE_CONTROL, "no-store")
                    .send(EchoAnswer.error(e));
            return;
        }
        response.header(HeaderNames.CONTENT_TYPE, EchoAnswer.CONTENT_TYPE)
                .header(HeaderNames.CACHE_CONTROL, "no-store")
                .send(answer);
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.stop();
    }
}
