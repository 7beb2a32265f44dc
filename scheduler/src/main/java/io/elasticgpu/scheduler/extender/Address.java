package io.elasticgpu.scheduler.extender;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A {@code host:port} to listen on, as {@link ExtenderConfig} gives it.
 *
 * @param host the address or name to bind, e.g. {@code 127.0.0.1}
 * @param port 0..65535; 0 lets the system choose
 */
public record Address(String host, int port) {

    /**
     * @param key the setting's name, for the message
     * @throws IllegalArgumentException when {@code value} is not host:port with a port 0..65535
     */
    static Address parse(String key, String value) {
        int colon = value == null ? -1 : value.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException(
                    "%s must be host:port, e.g. 127.0.0.1:8888, was \"%s\"".formatted(key, value));
        }
        try {
            int port = Integer.parseInt(value.substring(colon + 1));
            if (port < 0 || port > 65_535) {
                throw new NumberFormatException();
            }
            return new Address(value.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "%s: the port must be 0..65535, was \"%s\"".formatted(key, value.substring(colon + 1)));
        }
    }

    /** Whether only this host can reach it: a loopback address, or a name that resolves to one. */
    boolean loopback() {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(
                    "cannot resolve the host of %s:%d: %s".formatted(host, port, e.getMessage()), e);
        }
    }
}
