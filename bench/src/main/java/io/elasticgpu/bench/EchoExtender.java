package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpResponse;
import java.net.InetSocketAddress;

/**
 * The baseline: the extender's transport without its reasoning. The same {@link HttpEndpoint} as the extender
 * (JDK server, virtual threads, TCP_NODELAY); it parses the request into a JSON tree and answers that every node fits.
 */
final class EchoExtender implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpEndpoint endpoint;

    private EchoExtender(HttpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    static EchoExtender start() {
        return new EchoExtender(HttpEndpoint.on(new InetSocketAddress("127.0.0.1", 0))
                .post(
                        "/filter",
                        32 << 20,
                        request -> {
                            JsonNode args = JSON.readTree(request.body());
                            ObjectNode answer = JSON.createObjectNode();
                            String key = args.has("NodeNames") ? "NodeNames" : "Nodes";
                            answer.set(key, args.get(key));
                            answer.putObject("FailedNodes");
                            answer.put("Error", "");
                            return HttpResponse.json(JSON.writeValueAsBytes(answer));
                        },
                        null)
                .start("The benchmark takes any free port; is the machine out of them?"));
    }

    int port() {
        return endpoint.port();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
