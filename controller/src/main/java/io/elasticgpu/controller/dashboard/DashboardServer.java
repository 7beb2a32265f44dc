package io.elasticgpu.controller.dashboard;

import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.ViewFormat;
import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpRequest;
import io.elasticgpu.http.HttpResponse;
import io.elasticgpu.http.Route;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP on {@link HttpEndpoint}: {@code GET /ui/} (the dashboard), {@code /api/v1/cluster} (the view it
 * draws, as {@code egpu inspect -o json} prints it), {@code /metrics}, {@code /healthz} and {@code /readyz}. Read-only;
 * anything but GET is refused with 405.
 */
public final class DashboardServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    /** The only files {@code /ui/} serves, so that no request path reaches anything else on the classpath. */
    private static final Map<String, String> FILES = Map.of(
            "", "text/html; charset=utf-8",
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "style.css", "text/css; charset=utf-8");

    private final HttpEndpoint endpoint;

    private DashboardServer(HttpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * Listens on {@code address} (port 0: any free port) and serves at once.
     *
     * @param ready answers {@code /readyz}: the view is complete once the informers have synced
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static DashboardServer start(
            InetSocketAddress address, Supplier<ClusterView> view, BooleanSupplier ready, ControllerMetrics metrics) {
        HttpEndpoint endpoint = HttpEndpoint.on(address)
                .get("/", r -> HttpResponse.redirect("/ui/"))
                .route(new Route("GET", "/ui", true, 0, DashboardServer::file, null))
                .get(
                        "/api/v1/cluster",
                        r -> HttpResponse.json(
                                ViewFormat.JSON.render(view.get()).getBytes(StandardCharsets.UTF_8)))
                .health(ready, "nodes and pods not listed yet")
                .metrics(metrics.registry())
                .start("Change --http-listen.");
        LOG.info("dashboard serving http://{}:{}/ui/", address.getHostString(), endpoint.port());
        return new DashboardServer(endpoint);
    }

    /** The port actually bound: the one asked for, or the one chosen for port 0. */
    public int port() {
        return endpoint.port();
    }

    private static HttpResponse file(HttpRequest request) throws IOException {
        String path = request.path();
        if (path.equals("/ui")) {
            return HttpResponse.redirect("/ui/"); // relative links in the page need the trailing slash
        }
        String name = path.startsWith("/ui/") ? path.substring("/ui/".length()) : null;
        String type = name == null ? null : FILES.get(name);
        if (type == null) {
            return HttpResponse.text(404, "not found: " + path + "; the dashboard is at /ui/");
        }
        try (InputStream in =
                DashboardServer.class.getResourceAsStream("ui/" + (name.isEmpty() ? "index.html" : name))) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks the dashboard file " + name);
            }
            return HttpResponse.of(type, in.readAllBytes());
        }
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
