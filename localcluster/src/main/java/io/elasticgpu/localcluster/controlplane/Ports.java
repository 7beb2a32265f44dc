package io.elasticgpu.localcluster.controlplane;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

/** Loopback ports: a free one, and whether one is free. */
public final class Ports {

    private Ports() {}

    /**
     * A port nothing listens on now, below the kernel's ephemeral range (32768 and up on Linux): a port the kernel
     * hands out for port 0 may be taken as the local port of an outgoing connection before the program we start
     * binds it, which made a component fail with "address already in use" now and then.
     */
    public static int free() {
        for (int i = 0; i < 500; i++) {
            int port = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(12_000);
            if (isFree(port)) {
                return port;
            }
        }
        return kernelChosen();
    }

    private static int kernelChosen() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("cannot find a free loopback port: " + e.getMessage(), e);
        }
    }

    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether {@code port} is free within ten seconds (a stopped program's socket may linger briefly). */
    static boolean awaitFree(int port) {
        return Poll.until(() -> isFree(port), Duration.ofSeconds(10), Duration.ofMillis(100));
    }

    /** What a program that could not bind its port says (Go's net package, as every component is written in Go). */
    static final String BIND_TAKEN = "address already in use";

    /**
     * Runs {@code start}, which starts {@code component} on its entry in {@code ports}. When the component exits
     * because something bound that port after it was chosen (all ports are chosen before the first component starts,
     * and other programs, such as other test clusters on the machine, choose from the same range), chooses another
     * free port and starts it again, three times at most.
     *
     * @throws IllegalStateException what the last start threw
     */
    static void startRebinding(String component, Map<String, Integer> ports, Runnable start) {
        for (int attempt = 1; ; attempt++) {
            try {
                start.run();
                return;
            } catch (IllegalStateException e) {
                if (attempt == 3 || e.getMessage() == null || !e.getMessage().contains(BIND_TAKEN)) {
                    throw e;
                }
                ports.put(component, free());
            }
        }
    }

    /**
     * @throws IllegalStateException when something already listens on {@code port}
     */
    public static void requireFree(int port, String forWhat) {
        if (!isFree(port)) {
            throw new IllegalStateException(
                    "port %d on 127.0.0.1 (for %s) is taken by another process; stop it or pick another port"
                            .formatted(port, forWhat));
        }
    }
}
