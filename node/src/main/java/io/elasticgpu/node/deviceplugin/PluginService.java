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
import io.elasticgpu.node.deviceplugin.api.ListAndWatchResponse;
import io.elasticgpu.node.deviceplugin.api.NUMANode;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.TopologyInfo;
import io.elasticgpu.node.discovery.Gpu;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One resource's device plugin for cards and their shares: translates kubelet's calls to the {@link Allocator}. */
public final class PluginService extends DevicePlugin {

    private static final Logger LOG = LoggerFactory.getLogger(PluginService.class);

    private final AdvertisedResource resource;
    private final DeviceCatalog catalog;
    private final Allocator allocator;
    private final ContainerEnvironment environment;
    private final ShareIsolation isolation;
    private final IntPredicate healthy;

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

    @Override
    public String resourceName() {
        return resource.name();
    }

    @Override
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
}
