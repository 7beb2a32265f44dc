package io.elasticgpu.localcluster.components;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A Service in front of the webhook's replicas, at TCP level, in its hardest case for a failover: every connection
 * goes to the first backend that accepts one (so one replica serves everything until it dies, then the next takes
 * over), bytes are copied both ways (TLS passes through), and when either side closes both are closed, so that a
 * client never reuses a connection to a replica that is gone. Counts the connections each backend got.
 */
public final class TcpBalancer implements AutoCloseable {

    private final ServerSocket server;
    private final List<Integer> backends;
    private final AtomicIntegerArray connections;

    public TcpBalancer(List<Integer> backends) {
        this.backends = List.copyOf(backends);
        this.connections = new AtomicIntegerArray(backends.size());
        try {
            server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().name("tcp-balancer").start(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections made to backend {@code i} so far. */
    public int connections(int i) {
        return connections.get(i);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Thread.ofVirtual().start(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        Socket backend = connect();
        if (backend == null) {
            close(client);
            return;
        }
        Thread.ofVirtual().start(() -> copy(client, backend));
        copy(backend, client);
    }

    private Socket connect() {
        for (int i = 0; i < backends.size(); i++) {
            try {
                Socket socket = new Socket();
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), backends.get(i)), 1000);
                connections.incrementAndGet(i);
                return socket;
            } catch (IOException refused) {
                // that replica is down: try the next
            }
        }
        return null;
    }

    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side went away
        } finally {
            close(from);
            close(to);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
