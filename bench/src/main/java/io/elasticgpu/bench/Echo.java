package io.elasticgpu.bench;

/** An echo on some HTTP stack: {@code POST /filter} answered with {@link EchoAnswer#filter}, on loopback. */
interface Echo extends AutoCloseable {

    int port();

    @Override
    void close();
}
