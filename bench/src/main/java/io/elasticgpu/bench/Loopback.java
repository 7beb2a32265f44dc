package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HTTP/1.1 on loopback as kube-scheduler calls an extender: one kept-alive connection per calling thread, POST a
 * JSON body, read the whole answer. Deliberately minimal (Content-Length bodies only) so that the client costs as
 * little as Go's net/http does and the measurement is the server's.
 */
final class Loopback implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Each thread's connection to each port, kept while it calls others. */
    private final ThreadLocal<Map<Integer, Connection>> connections = ThreadLocal.withInitial(HashMap::new);

    private final List<Connection> all = new ArrayList<>();

    /** Posts and returns the body; any status but 200 is an error, since a benchmark must not time failures. */
    String post(int port, String verb, byte[] body) throws IOException {
        Map<Integer, Connection> mine = connections.get();
        Connection kept = mine.get(port);
        if (kept != null) {
            try {
                return kept.post(verb, body);
            } catch (SocketException | Closed e) {
                // The server closed it while it was idle (the JDK server does after 30 s); Go's client retries these.
                kept.close();
            }
        }
        Connection c = new Connection(port);
        mine.put(port, c);
        synchronized (all) {
            all.add(c);
        }
        return c.post(verb, body);
    }

    /** Latency of {@code requests} calls made one at a time, cycling through {@code bodies}, after as many warm-ups. */
    Latency latency(int port, String verb, List<byte[]> bodies, int requests) throws IOException {
        timings(port, verb, bodies, requests);
        return Latency.of(timings(port, verb, bodies, requests));
    }

    /** Nanoseconds of each of {@code requests} calls made one at a time, cycling through {@code bodies}. */
    long[] timings(int port, String verb, List<byte[]> bodies, int requests) throws IOException {
        long[] nanos = new long[requests];
        for (int i = 0; i < requests; i++) {
            long start = System.nanoTime();
            post(port, verb, bodies.get(i % bodies.size()));
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    /** Sends every body from {@code callers} threads; returns how many answers carried an {@code Error}. */
    int sendAll(int port, String verb, List<byte[]> bodies, int callers) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(callers)) {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                done.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < bodies.size(); i = next.getAndIncrement()) {
                        JsonNode error =
                                JSON.readTree(post(port, verb, bodies.get(i))).get("Error");
                        if (error != null && !error.asText("").isEmpty()) {
                            failed.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        return failed.get();
    }

    @Override
    public void close() {
        synchronized (all) {
            all.forEach(Connection::close);
        }
    }

    /** The server closed the connection before answering. */
    private static final class Closed extends IOException {
        Closed() {
            super("the server closed the connection");
        }
    }

    /** Milliseconds. */
    record Latency(double p50, double p99, double max) {

        static Latency of(long[] timings) {
            long[] nanos = timings.clone();
            Arrays.sort(nanos);
            int n = nanos.length;
            return new Latency(nanos[n / 2] / 1e6, nanos[(int) Math.ceil(n * 0.99) - 1] / 1e6, nanos[n - 1] / 1e6);
        }
    }

    private static final class Connection {
        private final int port;
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        Connection(int port) throws IOException {
            this.port = port;
            this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            this.out = socket.getOutputStream();
            this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        }

        String post(String verb, byte[] body) throws IOException {
            String head =
                    ("POST /%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: "
                                    + "%d\r\n\r\n")
                            .formatted(verb, port, body.length);
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            String status = line();
            int length = -1;
            for (String h = line(); !h.isEmpty(); h = line()) {
                if (h.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(h.substring(15).trim());
                }
            }
            if (length < 0) {
                throw new IOException(verb + ": the answer has no Content-Length");
            }
            String answer = new String(in.readNBytes(length), StandardCharsets.UTF_8);
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("%s answered %s: %s".formatted(verb, status, answer));
            }
            return answer;
        }

        private String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream(64);
            for (int ch = in.read(); ch != '\n'; ch = in.read()) {
                if (ch < 0) {
                    throw new Closed();
                }
                if (ch != '\r') {
                    b.write(ch);
                }
            }
            return b.toString(StandardCharsets.US_ASCII);
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
