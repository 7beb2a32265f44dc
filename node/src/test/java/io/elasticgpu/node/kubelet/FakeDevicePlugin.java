package io.elasticgpu.node.kubelet;

import static java.util.concurrent.TimeUnit.SECONDS;

import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.deviceplugin.api.Device;
import io.elasticgpu.node.deviceplugin.api.DevicePluginGrpc;
import io.elasticgpu.node.deviceplugin.api.DevicePluginOptions;
import io.elasticgpu.node.deviceplugin.api.DeviceSpec;
import io.elasticgpu.node.deviceplugin.api.Empty;
import io.elasticgpu.node.deviceplugin.api.ListAndWatchResponse;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerRequest;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerResponse;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.RegisterRequest;
import io.elasticgpu.node.deviceplugin.api.RegistrationGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A device plugin of a few always-healthy devices, serving {@value #SOCKET} in kubelet's plugin directory. Allocate
 * answers each container with {@value #ENV} (its device ids, sorted, comma-separated) and a device node
 * {@code /dev/<id>} per device; PreStartContainer is asked for, and fails, only when made by
 * {@link #failingPreStart}.
 */
final class FakeDevicePlugin implements AutoCloseable {

    static final String SOCKET = "fake.sock";
    static final String ENV = "FAKE_VISIBLE_DEVICES";

    private final String resource;
    private final List<String> deviceIds;
    private final Optional<String> preStartFailure;
    private final Set<ServerCallStreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();
    private final Server server;

    private FakeDevicePlugin(
            Path pluginDir, String resource, List<String> deviceIds, Optional<String> preStartFailure) {
        this.resource = resource;
        this.deviceIds = List.copyOf(deviceIds);
        this.preStartFailure = preStartFailure;
        this.server = UnixSockets.serve(pluginDir.resolve(SOCKET), new Service());
    }

    /** Serves {@code deviceIds} of {@code resource}; Allocate always succeeds. */
    static FakeDevicePlugin serve(Path pluginDir, String resource, List<String> deviceIds) {
        return new FakeDevicePlugin(pluginDir, resource, deviceIds, Optional.empty());
    }

    /** Like {@link #serve}, but asks kubelet for PreStartContainer and fails it with {@code message}. */
    static FakeDevicePlugin failingPreStart(Path pluginDir, String resource, List<String> deviceIds, String message) {
        return new FakeDevicePlugin(pluginDir, resource, deviceIds, Optional.of(message));
    }

    /** Registers with the kubelet listening on {@code kubeletSocket}; kubelet calls back before this returns. */
    void register(Path kubeletSocket) {
        ManagedChannel channel = UnixSockets.connect(kubeletSocket);
        try {
            RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, SECONDS)
                    .register(RegisterRequest.newBuilder()
                            .setVersion("v1beta1")
                            .setEndpoint(SOCKET)
                            .setResourceName(resource)
                            .setOptions(options())
                            .build());
        } finally {
            channel.shutdownNow();
        }
    }

    private DevicePluginOptions options() {
        return DevicePluginOptions.newBuilder()
                .setPreStartRequired(preStartFailure.isPresent())
                .build();
    }

    @Override
    public void close() {
        watchers.forEach(w -> {
            if (!w.isCancelled()) {
                w.onCompleted();
            }
        });
        server.shutdownNow();
        try {
            server.awaitTermination(10, SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Service extends DevicePluginGrpc.DevicePluginImplBase {

        @Override
        public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
            response.onNext(options());
            response.onCompleted();
        }

        @Override
        public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
            var watcher = (ServerCallStreamObserver<ListAndWatchResponse>) response;
            watcher.setOnCancelHandler(() -> watchers.remove(watcher));
            watchers.add(watcher);
            ListAndWatchResponse.Builder devices = ListAndWatchResponse.newBuilder();
            deviceIds.forEach(
                    id -> devices.addDevices(Device.newBuilder().setID(id).setHealth("Healthy")));
            watcher.onNext(devices.build());
        }

        @Override
        public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
            AllocateResponse.Builder answer = AllocateResponse.newBuilder();
            for (ContainerAllocateRequest container : request.getContainerRequestsList()) {
                List<String> ids =
                        container.getDevicesIdsList().stream().sorted().toList();
                ContainerAllocateResponse.Builder c =
                        ContainerAllocateResponse.newBuilder().putEnvs(ENV, String.join(",", ids));
                ids.forEach(id -> c.addDevices(DeviceSpec.newBuilder()
                        .setContainerPath("/dev/" + id)
                        .setHostPath("/dev/null")
                        .setPermissions("rw")));
                answer.addContainerResponses(c);
            }
            response.onNext(answer.build());
            response.onCompleted();
        }

        @Override
        public void preStartContainer(
                PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> response) {
            if (preStartFailure.isPresent()) {
                response.onError(Status.FAILED_PRECONDITION
                        .withDescription(preStartFailure.get())
                        .asRuntimeException());
                return;
            }
            response.onNext(PreStartContainerResponse.getDefaultInstance());
            response.onCompleted();
        }

        @Override
        public void getPreferredAllocation(
                PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
            response.onNext(PreferredAllocationResponse.getDefaultInstance());
            response.onCompleted();
        }
    }
}
