package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The echoes that {@code bench/run extender} measures on three HTTP stacks answer alike, so that their pairs per
 * second differ by the stack alone: the JDK server as the extender runs it ({@link EchoExtender}), Helidon SE's
 * WebServer ({@link HelidonEcho}) and the JDK server without an executor ({@link JdkDispatcherEcho}).
 */
class EchoStacksTest {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static EchoExtender jdk;
    private static HelidonEcho helidon;
    private static JdkDispatcherEcho dispatcher;

    @BeforeAll
    static void start() {
        jdk = EchoExtender.start();
        helidon = HelidonEcho.start();
        dispatcher = JdkDispatcherEcho.start();
    }

    @AfterAll
    static void stop() {
        jdk.close();
        helidon.close();
        dispatcher.close();
    }

    @Test
    void helidonAnswersAFilterRequestWithTheJdkEchosBody() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":[\"gpu-00000\",\"gpu-00001\"]}";
        HttpResponse<String> expected = post(jdk, body);

        assertThat(expected.statusCode()).isEqualTo(200);
        assertThat(expected.body())
                .isEqualTo("{\"NodeNames\":[\"gpu-00000\",\"gpu-00001\"],\"FailedNodes\":{},\"Error\":\"\"}");
        for (Echo other : List.of(helidon, dispatcher)) {
            HttpResponse<String> answer = post(other, body);
            assertThat(answer.statusCode()).as(other.getClass().getSimpleName()).isEqualTo(200);
            assertThat(answer.body()).as(other.getClass().getSimpleName()).isEqualTo(expected.body());
            assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/json");
        }
    }

    @Test
    void fullNodesComeBackTheSameFromEveryStack() throws Exception {
        String body = "{\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"gpu-00000\"}}]}}";
        String expected = post(jdk, body).body();

        assertThat(expected)
                .isEqualTo("{\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"gpu-00000\"}}]},"
                        + "\"FailedNodes\":{},\"Error\":\"\"}");
        assertThat(post(helidon, body).body()).isEqualTo(expected);
        assertThat(post(dispatcher, body).body()).isEqualTo(expected);
    }

    @Test
    void aMalformedBodyGetsTheSame400FromEveryStack() throws Exception {
        String body = "{\"NodeNames\": [\"gpu-00000\"";
        HttpResponse<String> expected = post(jdk, body);

        assertThat(expected.statusCode()).isEqualTo(400);
        assertThat(expected.body()).startsWith("the request body is not JSON: ").endsWith("as kube-scheduler does");
        for (Echo other : List.of(helidon, dispatcher)) {
            HttpResponse<String> answer = post(other, body);
            assertThat(answer.statusCode()).as(other.getClass().getSimpleName()).isEqualTo(400);
            assertThat(answer.body()).as(other.getClass().getSimpleName()).isEqualTo(expected.body());
            assertThat(answer.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
        }
    }

    private static HttpResponse<String> post(Echo echo, String body) throws Exception {
        return CLIENT.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + echo.port() + "/filter"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }
}
