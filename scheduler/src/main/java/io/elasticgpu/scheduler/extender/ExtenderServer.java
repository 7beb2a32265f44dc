package io.elasticgpu.scheduler.extender;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.http.BadRequest;
import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpResponse;
import io.elasticgpu.http.Route;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.OptionalInt;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The extender protocol over {@link HttpEndpoint}: {@code POST /filter}, {@code /prioritize}, {@code /preempt} and
 * {@code /bind}, {@code GET /debug/cache} ({@link CacheDebug}), and
 * {@code GET /healthz}, {@code /readyz} (caches synced) and {@code /metrics}; the last three also on the metrics
 * address when one is configured, where nothing else is served (the verbs stay on loopback, beside kube-scheduler). A
 * request kube-scheduler would never
 * send (malformed JSON, wrong types, no pod, no candidate nodes, a body over the limit) gets a 4xx saying what is
 * wrong and changes nothing.
 */
public final class ExtenderServer implements AutoCloseable {

    static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /**
     * The largest filter, prioritize or preempt request read: kube-scheduler sends full Node objects (and victims as
     * full Pods) when the extender is not nodeCacheCapable, a few KiB each, so 32 MiB covers some 5,000 nodes; with
     * NodeNames (the chart's setting) a request is far smaller.
     */
    static final int MAX_REQUEST_BYTES = 32 << 20;
    /** A bind request is four short strings. */
    static final int MAX_BIND_BYTES = 64 << 10;
    /** The outcome of a verb for the metrics (ok, error, bound), also told to the caller in this header. */
    private static final String RESULT = "X-Egpu-Result";

    private final HttpEndpoint endpoint;
    private final HttpEndpoint metricsEndpoint;
    private final Verbs verbs;
    /** What lives as long as the server (the ledger tidying's timer), closed after it. */
    private final java.util.List<AutoCloseable> alongside = new java.util.concurrent.CopyOnWriteArrayList<>();

    private ExtenderServer(HttpEndpoint endpoint, HttpEndpoint metricsEndpoint, Verbs verbs) {
        this.endpoint = endpoint;
        this.metricsEndpoint = metricsEndpoint;
        this.verbs = verbs;
    }

    static ExtenderServer start(ExtenderConfig config, Verbs verbs, ExtenderMetrics metrics, BooleanSupplier ready) {
        return start(config, verbs, metrics, ready, null);
    }

    /** @param debug what {@code GET /debug/cache} answers; null serves no such route */
    static ExtenderServer start(
            ExtenderConfig config, Verbs verbs, ExtenderMetrics metrics, BooleanSupplier ready, CacheDebug debug) {
        HttpEndpoint.Builder builder = HttpEndpoint.on(new InetSocketAddress(config.host(), config.port()))
                .post(
                        "/filter",
                        MAX_REQUEST_BYTES,
                        r -> {
                            Wire.ExtenderFilterResult result =
                                    verbs.filter(read(r.body(), Wire.ExtenderArgs.class, "filter"));
                            boolean ok =
                                    result.error() == null || result.error().isEmpty();
                            return json(result).withHeader(RESULT, ok ? "ok" : "error");
                        },
                        observe(metrics, "filter"))
                .post(
                        "/prioritize",
                        MAX_REQUEST_BYTES,
                        r -> json(verbs.prioritize(read(r.body(), Wire.ExtenderArgs.class, "prioritize"))),
                        observe(metrics, "prioritize"))
                .post(
                        "/preempt",
                        MAX_REQUEST_BYTES,
                        r -> json(verbs.preempt(read(r.body(), Wire.ExtenderPreemptionArgs.class, "preempt"))),
                        observe(metrics, "preempt"))
                .post(
                        "/bind",
                        MAX_BIND_BYTES,
                        r -> {
                            Wire.ExtenderBindingResult result =
                                    verbs.bind(read(r.body(), Wire.ExtenderBindingArgs.class, "bind"));
                            return json(result).withHeader(RESULT, result.error() == null ? "bound" : "error");
                        },
                        observe(metrics, "bind"))
                .health(ready, "caches not synced")
                .metrics(metrics.registry());
        if (debug != null) {
            builder.get(
                    "/debug/cache",
                    r -> json(debug.report(!"compare=false".equals(r.uri().getQuery()))));
        }
        if (config.tlsCertFile().isPresent() && config.tlsKeyFile().isPresent()) {
            builder.tls(
                    Tls.server(config.tlsCertFile().get(), config.tlsKeyFile().get()));
        }
        HttpEndpoint served = builder.start("Change --listen.");
        try {
            HttpEndpoint metricsOnly = config.metricsListen()
                    .map(a -> HttpEndpoint.on(a.socketAddress())
                            .health(ready, "caches not synced")
                            .metrics(metrics.registry())
                            .start("Change --metrics-listen."))
                    .orElse(null);
            return new ExtenderServer(served, metricsOnly, verbs);
        } catch (RuntimeException e) {
            served.close();
            throw e;
        }
    }

    /** The port of the metrics address, if one is served. */
    public OptionalInt metricsPort() {
        return metricsEndpoint == null ? OptionalInt.empty() : OptionalInt.of(metricsEndpoint.port());
    }

    /** The port actually bound: the one configured, or the one chosen for port 0. */
    public int port() {
        return endpoint.port();
    }

    @Override
    public void close() {
        endpoint.close();
        if (metricsEndpoint != null) {
            metricsEndpoint.close();
        }
        verbs.close();
        for (AutoCloseable a : alongside) {
            try {
                a.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + a + ": " + e.getMessage(), e);
            }
        }
    }

    /** Closes {@code resource} when the server closes; returns this server. */
    ExtenderServer alongside(AutoCloseable resource) {
        alongside.add(resource);
        return this;
    }

    private static <T> T read(byte[] body, Class<T> type, String verb) {
        try {
            T value = JSON.readValue(body, type);
            if (value == null) {
                throw new BadRequest("the %s request body is empty or null; send the %s object as JSON"
                        .formatted(verb, type.getSimpleName()));
            }
            return value;
        } catch (JsonProcessingException e) {
            throw new BadRequest("malformed %s request: %s".formatted(verb, e.getOriginalMessage()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static HttpResponse json(Object body) throws JsonProcessingException {
        return HttpResponse.json(JSON.writeValueAsBytes(body));
    }

    /** Latency per verb, and the outcome: ok, error (the extender's own answer), bad_request, internal_error. */
    private static Route.Observer observe(ExtenderMetrics metrics, String verb) {
        Function<HttpResponse, String> result = r -> switch (r.status() / 100) {
            case 2 -> r.headers().getOrDefault(RESULT, "ok");
            case 4 -> "bad_request";
            default -> "internal_error";
        };
        return (start, response) -> metrics.observe(verb, start, result.apply(response));
    }
}
