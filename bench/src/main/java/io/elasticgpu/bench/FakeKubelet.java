package io.elasticgpu.bench;

import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest;
import io.elasticgpu.node.deviceplugin.api.DevicePluginGrpc;
import io.elasticgpu.node.deviceplugin.api.Empty;
import io.elasticgpu.node.deviceplugin.api.RegisterRequest;
import io.elasticgpu.node.deviceplugin.api.RegistrationGrpc;
import io.elasticgpu.node.podresources.api.ContainerDevices;
import io.elasticgpu.node.podresources.api.ContainerResources;
import io.elasticgpu.node.podresources.api.ListPodResourcesRequest;
import io.elasticgpu.node.podresources.api.ListPodResourcesResponse;
import io.elasticgpu.node.podresources.api.PodResources;
import io.elasticgpu.node.podresources.api.PodResourcesListerGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The two kubelet endpoints the agent talks to, reduced to what a benchmark needs: {@code Registration} on
 * {@code kubelet.sock} (remembers each plugin's socket) and pod-resources {@code List} (what {@link #allocate}
 * recorded). The tests use kubelet's real device manager instead; this one has no Go build and no noise of its own.
 */
final class FakeKubelet implements AutoCloseable {

    private final Path dir;
    private final Map<String, String> endpoints = new ConcurrentHashMap<>();
    private final Map<ContainerKey, Map<String, List<String>>> records = new ConcurrentHashMap<>();
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final Server registration;
    private final Server podResources;

    FakeKubelet(Path dir) {
        this.dir = dir;
        this.registration = UnixSockets.serve(dir.resolve("kubelet.sock"), new RegistrationGrpc.RegistrationImplBase() {
            @Override
            public void register(RegisterRequest r, StreamObserver<io.elasticgpu.node.deviceplugin.api.Empty> out) {
                endpoints.put(r.getResourceName(), r.getEndpoint());
                out.onNext(Empty.getDefaultInstance());
                out.onCompleted();
            }
        });
        this.podResources =
                UnixSockets.serve(podResourcesSocket(), new PodResourcesListerGrpc.PodResourcesListerImplBase() {
                    @Override
                    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
                        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
                        records.forEach((k, byResource) -> {
                            ContainerResources.Builder c =
                                    ContainerResources.newBuilder().setName(k.container());
                            byResource.forEach((r, ids) -> c.addDevices(ContainerDevices.newBuilder()
                                    .setResourceName(r)
                                    .addAllDeviceIds(ids)));
                            b.addPodResources(PodResources.newBuilder()
                                    .setNamespace(k.namespace())
                                    .setName(k.pod())
                                    .addContainers(c));
                        });
                        out.onNext(b.build());
                        out.onCompleted();
                    }
                });
    }

    Path podResourcesSocket() {
        return dir.resolve("pod-resources.sock");
    }

    int registered() {
        return endpoints.size();
    }

    /** kubelet's {@code Allocate} for one container, recorded like kubelet records it. */
    AllocateResponse allocate(String resource, ContainerKey container, List<String> ids) {
        AllocateResponse response = call(resource, ids);
        record(resource, container, ids);
        return response;
    }

    /** The {@code Allocate} call alone, as kubelet sends it to {@code resource}'s plugin; nothing recorded. */
    AllocateResponse call(String resource, List<String> ids) {
        ManagedChannel ch = channels.computeIfAbsent(resource, r -> UnixSockets.connect(dir.resolve(endpoints.get(r))));
        return DevicePluginGrpc.newBlockingStub(ch)
                .allocate(AllocateRequest.newBuilder()
                        .addContainerRequests(
                                ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids))
                        .build());
    }

    /** What kubelet records once the plugin answered: {@code container} holds {@code ids} of {@code resource}. */
    void record(String resource, ContainerKey container, List<String> ids) {
        records.computeIfAbsent(container, k -> new ConcurrentHashMap<>()).put(resource, List.copyOf(ids));
    }

    /**
     * A plugin that registered itself some other way (a benchmark's baseline): its calls go to {@code socket} in this
     * kubelet's directory.
     */
    void endpoint(String resource, String socket) {
        endpoints.put(resource, socket);
    }

    /** The pod was deleted: kubelet drops its records. */
    void forget(ContainerKey container) {
        records.remove(container);
    }

    void forgetAll() {
        records.clear();
    }

    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        registration.shutdownNow();
        podResources.shutdownNow();
    }
}
