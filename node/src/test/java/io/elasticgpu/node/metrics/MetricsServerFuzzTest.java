package io.elasticgpu.node.metrics;

import io.elasticgpu.http.HttpFuzz;
import java.net.URI;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** Any method, path, query and body on the node agent's metrics server: a 2xx/4xx answer, and still serving. */
class MetricsServerFuzzTest {

    private static MetricsServer server;
    private static URI base;

    @BeforeContainer
    static void start() {
        server = MetricsServer.start(new io.elasticgpu.http.ListenAddress("127.0.0.1", 0), new AgentMetrics("gpu-1"));
        base = URI.create("http://127.0.0.1:" + server.port() + "/");
    }

    @AfterContainer
    static void stop() {
        server.close();
    }

    @Provide
    Arbitrary<String> methods() {
        return HttpFuzz.methods();
    }

    @Provide
    Arbitrary<String> paths() {
        return Arbitraries.oneOf(
                Arbitraries.of(
                        "metrics",
                        "healthz",
                        "metrics?name[]=x",
                        "metrics?debug=text",
                        "readyz",
                        "",
                        "metrics/",
                        "..%2f..%2fetc%2fpasswd"),
                Arbitraries.strings().withChars("abcxyz/?=&._-").ofMaxLength(30));
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return HttpFuzz.bodies(List.of("", "{}", "x=1"));
    }

    @Property(tries = 300)
    void anyRequestGetsAnAnswerBelow500AndTheServerKeepsServing(
            @ForAll("methods") String method, @ForAll("paths") String path, @ForAll("bodies") byte[] body) {
        HttpFuzz.answersBelow500AndKeepsServing(base, method, path, body);
    }
}
