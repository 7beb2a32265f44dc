package io.elasticgpu.node.draplugin;

import io.elasticgpu.node.draplugin.registration.InfoRequest;
import io.elasticgpu.node.draplugin.registration.PluginInfo;
import io.elasticgpu.node.draplugin.registration.RegistrationGrpc;
import io.elasticgpu.node.draplugin.registration.RegistrationStatus;
import io.elasticgpu.node.draplugin.registration.RegistrationStatusResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Registration} service kubelet's plugin watcher calls when it finds our socket in its registration
 * directory: we say we are a {@code DRAPlugin} named after the driver, where our DRA socket is, and which DRA
 * services we implement ({@code v1.DRAPlugin}; kubelet 1.36 also accepts {@code v1beta1.DRAPlugin}, which we do not
 * serve). kubelet then tells us whether it took the registration.
 */
public final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

    /** The plugin type kubelet's DRA manager handles. */
    public static final String TYPE = "DRAPlugin";
    /** kubelet's name for the v1 DRAPlugin gRPC service, as it expects it in {@code supported_versions}. */
    public static final String DRA_V1 = "v1.DRAPlugin";

    private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

    private final String driver;
    private final Path endpoint;
    private volatile boolean registered;

    public RegistrationService(String driver, Path endpoint) {
        this.driver = driver;
        this.endpoint = endpoint;
    }

    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
        out.onNext(PluginInfo.newBuilder()
                .setType(TYPE)
                .setName(driver)
                .setEndpoint(endpoint.toString())
                .addSupportedVersions(DRA_V1)
                .build());
        out.onCompleted();
    }

    @Override
    public void notifyRegistrationStatus(RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
        registered = status.getPluginRegistered();
        if (registered) {
            LOG.info("kubelet registered DRA driver {} at {}", driver, endpoint);
        } else {
            LOG.error("kubelet refused DRA driver {}: {}", driver, status.getError());
        }
        out.onNext(RegistrationStatusResponse.getDefaultInstance());
        out.onCompleted();
    }

    /** Whether the last kubelet that asked took the registration. */
    public boolean registered() {
        return registered;
    }
}
