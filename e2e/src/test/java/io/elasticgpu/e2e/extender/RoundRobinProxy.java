package io.elasticgpu.e2e.extender;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a Service does for two extender replicas: each request to the next replica in turn. For the e2e test of two
 * replicas serving at once; a replica that does not answer gets the request's 502 passed on.
 */
final class RoundRobinProxy implements AutoCloseable {

    private final HttpServer server;

    RoundRobinProxy(List<String> backends) throws IOException {
        HttpClient client = HttpClient.newHttpClient();
        AtomicInteger next = new AtomicInteger();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", exchange -> {
            try (exchange) {
                String backend = backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
                byte[] body = exchange.getRequestBody().readAllBytes();
                byte[] answer;
                int status;
                try {
                    HttpResponse<byte[]> r = client.send(
                            HttpRequest.newBuilder(URI.create(
                                            backend + exchange.getRequestURI().getPath()))
                                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body))
                                    .header("Content-Type", "application/json")
                                    .build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    status = r.statusCode();
                    answer = r.body();
                } catch (IOException | InterruptedException e) {
                    status = 502;
                    answer = ("replica " + backend + " did not answer: " + e).getBytes();
                }
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
                if (answer.length > 0) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(answer);
                    }
                }
            }
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
