package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.deviceplugin.api.RegisterRequest;
import io.elasticgpu.node.deviceplugin.api.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Announces one plugin to kubelet on {@code kubelet.sock}. */
final class KubeletRegistration {

    static final String API_VERSION = "v1beta1";

    private KubeletRegistration() {}

    /**
     * @throws StatusRuntimeException when kubelet is not there or refuses (the message says why)
     */
    static void register(Path kubeletSocket, String endpoint, String resource) {
        ManagedChannel channel = UnixSockets.connect(kubeletSocket);
        try {
            RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(5, TimeUnit.SECONDS)
                    .register(RegisterRequest.newBuilder()
                            .setVersion(API_VERSION)
                            .setEndpoint(endpoint)
                            .setResourceName(resource)
                            .setOptions(DevicePlugin.options())
                            .build());
        } finally {
            channel.shutdownNow();
        }
    }
}
