package io.elasticgpu.http;

import java.io.IOException;

/**
 * One method on one path (or, with {@code prefix}, every path under it), with the largest request body it reads.
 *
 * @param handler  answers the request; null only for {@link HttpEndpoint.Builder#metrics}, where the Prometheus
 *                 library's handler answers the exchange itself
 * @param observer told the outcome of every call (for a component's latency metrics); may be null
 */
public record Route(String method, String path, boolean prefix, int maxBodyBytes, Handler handler, Observer observer) {

    @FunctionalInterface
    public interface Handler {
        HttpResponse handle(HttpRequest request) throws IOException;
    }

    /** Sees each call of a route: its start ({@code System.nanoTime()}) and the status answered. */
    @FunctionalInterface
    public interface Observer {
        void observe(long startNanos, HttpResponse response);
    }

    public boolean matches(String requestPath) {
        return prefix ? requestPath.startsWith(path) : requestPath.equals(path);
    }
}
