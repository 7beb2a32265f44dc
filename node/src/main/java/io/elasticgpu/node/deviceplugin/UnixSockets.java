package io.elasticgpu.node.deviceplugin;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** gRPC servers and channels over unix domain sockets (Linux epoll), sharing one small event loop. */
public final class UnixSockets {

    private static final EventLoopGroup LOOP = new EpollEventLoopGroup(
            2, Thread.ofPlatform().daemon().name("egpu-grpc-", 0).factory());

    private UnixSockets() {}

    /** Serves {@code service} on {@code socket}, replacing a stale socket file left by a previous run. */
    public static Server serve(Path socket, BindableService... services) {
        try {
            Files.deleteIfExists(socket);
            NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(LOOP)
                    .workerEventLoopGroup(LOOP)
                    .executor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
            for (BindableService service : services) {
                b.addService(service);
            }
            return b.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve on %s: %s; check that the directory exists and is writable"
                            .formatted(socket, e.getMessage()),
                    e);
        }
    }

    /** A plaintext channel to the server on {@code socket}. */
    public static ManagedChannel connect(Path socket) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .eventLoopGroup(LOOP)
                .usePlaintext()
                .build();
    }
}
