package io.elasticgpu.bench;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.elasticgpu.http.BadRequest;
import io.elasticgpu.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * What every echo answers, whatever HTTP stack carries it ({@link EchoExtender}, {@link HelidonEcho},
 * {@link JdkDispatcherEcho}): the request parsed into a Jackson tree and "every node fits", so that the stacks differ
 * only in transport. One place, so that they cannot drift apart.
 */
final class EchoAnswer {

    /** The largest request body an echo reads, as the extender's filter route: 32 MiB. */
    static final int MAX_BODY_BYTES = 32 << 20;

    static final String CONTENT_TYPE = HttpResponse.JSON;
    static final String ERROR_CONTENT_TYPE = HttpResponse.TEXT;

    private static final ObjectMapper JSON = new ObjectMapper();

    private EchoAnswer() {}

    /**
     * The answer to a filter (or prioritize) request's body: its {@code NodeNames} (or {@code Nodes}) back, no failed
     * node, no error.
     *
     * @throws BadRequest (400) when the body is not JSON, saying so
     */
    static byte[] filter(byte[] body) throws java.io.IOException {
        JsonNode args;
        try {
            args = JSON.readTree(body);
        } catch (JacksonException e) {
            throw new BadRequest("the request body is not JSON: " + e.getOriginalMessage()
                    + "; send ExtenderArgs as kube-scheduler does");
        }
        ObjectNode answer = JSON.createObjectNode();
        String key = args.has("NodeNames") ? "NodeNames" : "Nodes";
        answer.set(key, args.get(key));
        answer.putObject("FailedNodes");
        answer.put("Error", "");
        return JSON.writeValueAsBytes(answer);
    }

    /** The 4xx body for {@code e}, as {@link io.elasticgpu.http.HttpEndpoint} writes it. */
    static byte[] error(BadRequest e) {
        return e.getMessage().getBytes(StandardCharsets.UTF_8);
    }
}
