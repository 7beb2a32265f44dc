package io.elasticgpu.controller.dashboard;

import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.http.HttpFuzz;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** Any method, path and body on the dashboard's server (page, API, metrics): below 500, and still serving. */
class DashboardServerFuzzTest {

    private static final ClusterView VIEW = DashboardServerTest.view(true);
    private static DashboardServer server;
    private static URI base;

    @BeforeContainer
    static void start() {
        server = DashboardServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                () -> VIEW,
                () -> true,
                new ControllerMetrics(() -> VIEW, () -> true, () -> 7));
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
                        "",
                        "ui",
                        "ui/",
                        "ui/app.js",
                        "ui/../pom.xml",
                        "ui/x/../../etc/passwd",
                        "uix",
                        "api/v1/cluster",
                        "api/v1/cluster?x=1",
                        "api/v1/",
                        "metrics",
                        "metrics?name[]=a",
                        "healthz",
                        "readyz",
                        "ui/index.html%00"),
                Arbitraries.strings().withChars("aiu/.-_=?&xz").ofMaxLength(30));
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        return HttpFuzz.bodies(List.of("", "{}", "{\"nodes\":[]}"));
    }

    @Property(tries = 300)
    void anyRequestGetsAnAnswerBelow500AndTheServerKeepsServing(
            @ForAll("methods") String method, @ForAll("paths") String path, @ForAll("bodies") byte[] body) {
        HttpFuzz.answersBelow500AndKeepsServing(base, method, path, body);
    }
}
