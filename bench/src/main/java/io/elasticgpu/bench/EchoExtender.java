package io.elasticgpu.bench;

import io.elasticgpu.http.HttpEndpoint;
import io.elasticgpu.http.HttpResponse;
import java.net.InetSocketAddress;

/**
 * The baseline: the extender's transport without its reasoning. The same {@link HttpEndpoint} as the extender
 * (JDK server, virtual threads, TCP_NODELAY); it answers {@link EchoAnswer#filter}: every node fits.
 */
final class EchoExtender implements Echo {

    private final HttpEndpoint endpoint;

    private EchoExtender(HttpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    static EchoExtender start() {
        return new EchoExtender(HttpEndpoint.on(new InetSocketAddress("127.0.0.1", 0))
                .post(
                        "/filter",
                        EchoAnswer.MAX_BODY_BYTES,
                        request -> HttpResponse.json(EchoAnswer.filter(request.body())),
                        null)
                .start("The benchmark takes any free port; is the machine out of them?"));
    }

    @Override
    public int port() {
        return endpoint.port();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
