package io.elasticgpu.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * A {@code HOST:PORT} a component serves on, as every component's configuration gives it ({@code --listen},
 * {@code --metrics-listen}, {@code --http-listen}, {@code --webhook-listen}).
 *
 * @param host the address or name to bind, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
 * @param port 0..65535; 0 lets the system choose
 */
public record ListenAddress(String host, int port) {

    /** The value that serves nothing, where a setting may be turned off. */
    public static final String OFF = "off";

    /**
     * @throws IllegalArgumentException for a blank host or a port outside 0..65535
     */
    public ListenAddress {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("a listen address needs a host, e.g. 0.0.0.0:8080");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("the port of %s must be 0..65535, was %d".formatted(host, port));
        }
    }

    /**
     * {@code HOST:PORT}; the last colon splits, so {@code ::1:8888} is {@code ::1} and 8888.
     *
     * @param setting the setting's name and flag, for the message, e.g. {@code listen (--listen)}
     * @throws IllegalArgumentException naming the setting, showing the value and an example
     */
    public static ListenAddress parse(String setting, String value) {
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException(
                    "%s must be host:port, e.g. 127.0.0.1:8888, was \"%s\"".formatted(setting, value));
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (port < 0 || port > 65_535) {
                throw new NumberFormatException();
            }
            return new ListenAddress(value.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "%s: the port must be 0..65535, was \"%s\"".formatted(setting, value.substring(colon + 1)));
        }
    }

    /**
     * As {@link #parse}, or empty for {@value #OFF}.
     *
     * @throws IllegalArgumentException as {@link #parse}, saying that {@value #OFF} serves nothing
     */
    public static Optional<ListenAddress> parseOrOff(String setting, String value) {
        if (OFF.equals(value)) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(setting, value));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ", or " + OFF + " to serve nothing", e);
        }
    }

    /** Whether only this host can reach it: a loopback address, or a name that resolves to one. */
    public boolean loopback() {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(
                    "cannot resolve the host of %s:%d: %s".formatted(host, port, e.getMessage()), e);
        }
    }

    /** The socket address to bind. */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
