package io.elasticgpu.node.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** gRPC over unix domain sockets with the epoll transport grpc-netty-shaded bundles, as kubelet's APIs need. */
final class UnixDomainGrpc {

    private UnixDomainGrpc() {}

    /** One epoll thread; shut it down with {@code shutdownGracefully()} when done. */
    static EventLoopGroup eventLoops() {
        return new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    }

    /** A plaintext channel to the server listening on {@code socket}. */
    static ManagedChannel channel(Path socket, EventLoopGroup eventLoops) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .eventLoopGroup(eventLoops)
                .overrideAuthority("localhost")
                .usePlaintext()
                .build();
    }

    /** Serves {@code service} on a new socket file at {@code socket}. */
    static Server serve(Path socket, EventLoopGroup eventLoops, BindableService service) {
        try {
            return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(eventLoops)
                    .workerEventLoopGroup(eventLoops)
                    .addService(service)
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve on " + socket, e);
        }
    }
}
