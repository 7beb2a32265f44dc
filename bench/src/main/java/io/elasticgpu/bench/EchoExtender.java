package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The baseline: the extender's transport without its reasoning. Same JDK server, virtual threads and TCP_NODELAY;
 * it parses the request into a JSON tree and answers that every node fits.
 */
final class EchoExtender implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    private EchoExtender(HttpServer server) {
        this.server = server;
    }

    static EchoExtender start() throws IOException {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        EchoExtender echo = new EchoExtender(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024));
        echo.server.createContext("/filter", exchange -> {
            try (exchange) {
                JsonNode args = JSON.readTree(exchange.getRequestBody());
                ObjectNode answer = JSON.createObjectNode();
                answer.set(args.has("NodeNames") ? "NodeNames" : "Nodes", args.has("NodeNames") ? args.get("NodeNames") : args.get("Nodes"));
                answer.putObject("FailedNodes");
                answer.put("Error", "");
                byte[] bytes = JSON.writeValueAsBytes(answer);
                exchange.sendResponseHeaders(200, bytes.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        });
        echo.server.setExecutor(echo.executor);
        echo.server.start();
        return echo;
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
