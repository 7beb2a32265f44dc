package io.elasticgpu.node.metrics;

import java.util.Optional;

/**
 * Where the node agent serves {@code /metrics} and {@code /healthz}: {@code HOST:PORT}, or {@code off}.
 *
 * @param host the address to bind, e.g. {@code 0.0.0.0}
 * @param port 0..65535; 0 picks a free port (tests)
 */
public record MetricsAddress(String host, int port) {

    public static final String DEFAULT = "0.0.0.0:9401";
    /** The value that turns the metrics server off. */
    public static final String OFF = "off";

    /**
     * {@code HOST:PORT}, or empty for {@link #OFF}.
     *
     * @throws IllegalArgumentException saying what to write instead
     */
    public static Optional<MetricsAddress> parse(String value) {
        if (OFF.equals(value)) {
            return Optional.empty();
        }
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon <= 0) {
            throw invalid(value);
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (port < 0 || port > 65535) {
                throw invalid(value);
            }
            return Optional.of(new MetricsAddress(value.substring(0, colon), port));
        } catch (NumberFormatException e) {
            throw invalid(value);
        }
    }

    private static IllegalArgumentException invalid(String value) {
        return new IllegalArgumentException(
                ("--metrics-listen must be HOST:PORT with a port 0..65535 (e.g. %s) or %s to "
                                + "serve no metrics, was \"%s\"")
                        .formatted(DEFAULT, OFF, value));
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
