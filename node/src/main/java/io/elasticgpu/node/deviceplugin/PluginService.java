package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.Allocator;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest;
import io.elasticgpu.node.deviceplugin.api.ContainerPreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.ContainerPreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.Device;
import io.elasticgpu.node.deviceplugin.api.DevicePluginGrpc;
import io.elasticgpu.node.deviceplugin.api.DevicePluginOptions;
import io.elasticgpu.node.deviceplugin.api.Empty;
import io.elasticgpu.node.deviceplugin.api.ListAndWatchResponse;
import io.elasticgpu.node.deviceplugin.api.NUMANode;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerRequest;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerResponse;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.TopologyInfo;
import io.elasticgpu.node.discovery.Gpu;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resource's device plugin: translates kubelet's calls to the {@link Allocator} and back. {@code ListAndWatch}
 * streams stay open; {@link #healthChanged} sends every open stream the whole list again, as the API wants.
 */
public final class PluginService extends DevicePluginGrpc.DevicePluginImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(PluginService.class);

    private final AdvertisedResource resource;
    private final DeviceCatalog catalog;
    private final Allocator allocator;
    private final ContainerEnvironment environment;
    private final ShareIsolation isolation;
    private final IntPredicate healthy;
    private final Set<StreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();

    public PluginService(
            AdvertisedResource resource,
            DeviceCatalog catalog,
            Allocator allocator,
            ContainerEnvironment environment,
            ShareIsolation isolation,
            IntPredicate healthy) {
        this.resource = resource;
        this.catalog = catalog;
        this.allocator = allocator;
        this.environment = environment;
        this.isolation = isolation;
        this.healthy = healthy;
    }

    public AdvertisedResource resource() {
        return resource;
    }

    static DevicePluginOptions options() {
        return DevicePluginOptions.newBuilder()
                .setGetPreferredAllocationAvailable(true)
                .build();
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
        out.onNext(options());
        out.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
        ServerCallStreamObserver<ListAndWatchResponse> stream = (ServerCallStreamObserver<ListAndWatchResponse>) out;
        stream.setOnCancelHandler(() -> watchers.remove(out));
        watchers.add(out);
        synchronized (out) {
            out.onNext(devices());
        }
    }

    /** Sends the current device list, with health, to every open {@code ListAndWatch}. */
    public void healthChanged() {
        ListAndWatchResponse list = devices();
        for (StreamObserver<ListAndWatchResponse> w : watchers) {
            try {
                synchronized (w) {
                    w.onNext(list);
                }
            } catch (RuntimeException e) { // the stream closed under us; kubelet will call again
                watchers.remove(w);
                LOG.debug("ListAndWatch stream of {} closed: {}", resource.name(), e.toString());
            }
        }
    }

    /** Ends every open stream, so kubelet knows the plugin is going away. */
    public void closeStreams() {
        for (StreamObserver<ListAndWatchResponse> w : watchers) {
            try {
                synchronized (w) {
                    w.onCompleted();
                }
            } catch (RuntimeException e) {
                LOG.debug("closing a ListAndWatch stream of {}: {}", resource.name(), e.toString());
            }
        }
        watchers.clear();
    }

    ListAndWatchResponse devices() {
        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
        for (Gpu g : catalog.hardware().gpus()) {
            String health = healthy.test(g.index()) ? "Healthy" : "Unhealthy";
            TopologyInfo topology = g.numaNode() < 0
                    ? null
                    : TopologyInfo.newBuilder()
                            .addNodes(NUMANode.newBuilder().setID(g.numaNode()))
                            .build();
            for (String id : catalog.idsOn(resource, g.index())) {
                Device.Builder d = Device.newBuilder().setID(id).setHealth(health);
                if (topology != null) {
                    d.setTopology(topology);
                }
                b.addDevices(d);
            }
        }
        return b.build();
    }

    @Override
    public void getPreferredAllocation(
            PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
        try {
            PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
            for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
                List<String> ids = allocator.preferred(
                        resource.name(),
                        c.getAvailableDeviceIDsList(),
                        c.getMustIncludeDeviceIDsList(),
                        c.getAllocationSize());
                b.addContainerResponses(
                        ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
            }
            out.onNext(b.build());
            out.onCompleted();
        } catch (AllocationException | IllegalArgumentException e) {
            out.onError(
                    Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
        }
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        try {
            AllocateResponse.Builder b = AllocateResponse.newBuilder();
            for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
                ContainerGrant grant = allocator.allocate(resource.name(), c.getDevicesIdsList());
                LOG.info(
                        "allocate resource={} devices={} container={} cards={} note={}",
                        resource.name(),
                        c.getDevicesIdsCount(),
                        grant.container(),
                        grant.shares().stream().map(s -> s.card()).toList(),
                        grant.note());
                b.addContainerResponses(environment.response(grant, catalog, resource, isolation.isolate(grant)));
            }
            out.onNext(b.build());
            out.onCompleted();
        } catch (AllocationException e) {
            LOG.warn("allocate resource={} refused: {}", resource.name(), e.getMessage());
            out.onError(
                    Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
        }
    }

    @Override
    public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        out.onNext(PreStartContainerResponse.getDefaultInstance());
        out.onCompleted();
    }
}
