package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.deviceplugin.api.DevicePluginGrpc;
import io.elasticgpu.node.deviceplugin.api.DevicePluginOptions;
import io.elasticgpu.node.deviceplugin.api.Empty;
import io.elasticgpu.node.deviceplugin.api.ListAndWatchResponse;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerRequest;
import io.elasticgpu.node.deviceplugin.api.PreStartContainerResponse;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every device plugin of the agent does alike: its options, and {@code ListAndWatch} streams that stay open,
 * {@link #healthChanged} sending every open stream the whole list again, as the API wants. {@link PluginService}
 * serves cards and their shares, {@link MigDevicePlugin} the MIG devices of one profile.
 */
public abstract class DevicePlugin extends DevicePluginGrpc.DevicePluginImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(DevicePlugin.class);

    private final Set<StreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();

    /** The resource kubelet advertises for this plugin, e.g. {@code elasticgpu.io/gpu-memory}. */
    public abstract String resourceName();

    /** The socket file this plugin serves on, named after its resource. */
    public String socketName() {
        return AdvertisedResource.socketName(resourceName());
    }

    /** Every device of the resource now, with its health. */
    abstract ListAndWatchResponse devices();

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
                LOG.debug("ListAndWatch stream of {} closed: {}", resourceName(), e.toString());
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
                LOG.debug("closing a ListAndWatch stream of {}: {}", resourceName(), e.toString());
            }
        }
        watchers.clear();
    }

    @Override
    public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        out.onNext(PreStartContainerResponse.getDefaultInstance());
        out.onCompleted();
    }
}
