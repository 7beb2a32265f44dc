package io.elasticgpu.node.draplugin;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.draplugin.health.DRAResourceHealthGrpc;
import io.elasticgpu.node.draplugin.health.DeviceHealth;
import io.elasticgpu.node.draplugin.health.DeviceIdentifier;
import io.elasticgpu.node.draplugin.health.HealthStatus;
import io.elasticgpu.node.draplugin.health.NodeWatchResourcesRequest;
import io.elasticgpu.node.draplugin.health.NodeWatchResourcesResponse;
import io.elasticgpu.node.health.CardHealth;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * kubelet's {@code DRAResourceHealth} (v1alpha1): each open stream gets every card's health at once, again whenever
 * a card's health changes, and every {@link #REFRESH} anyway, because kubelet takes a device's health as unknown when
 * no update came within its timeout ({@link #TIMEOUT}, said with each device). A card is the device {@code gpu-<index>}
 * of the node's pool, as in the ResourceSlice; an unhealthy one carries the reason (an Xid, an ECC error).
 */
public final class DraHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase implements AutoCloseable {

    static final Duration REFRESH = Duration.ofSeconds(10);
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String pool;
    private final Hardware hardware;
    private final CardHealth health;
    private final InstantSource clock;
    private final Set<StreamObserver<NodeWatchResourcesResponse>> streams = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService refresh = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("egpu-dra-health").factory());

    /** @param pool the ResourceSlice's pool, the node's name */
    public DraHealthService(String pool, Hardware hardware, CardHealth health, InstantSource clock) {
        this.pool = pool;
        this.hardware = hardware;
        this.health = health;
        this.clock = clock;
        refresh.scheduleWithFixedDelay(this::changed, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void nodeWatchResources(NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> out) {
        if (out instanceof ServerCallStreamObserver<NodeWatchResourcesResponse> call) {
            call.setOnCancelHandler(() -> streams.remove(out)); // kubelet went (a restart): forget the stream
        }
        streams.add(out);
        send(out, now());
    }

    /** Sends every card's health to every open stream: after a change, and every {@link #REFRESH}. */
    public void changed() {
        NodeWatchResourcesResponse now = now();
        streams.forEach(out -> send(out, now));
    }

    private void send(StreamObserver<NodeWatchResourcesResponse> out, NodeWatchResourcesResponse response) {
        try {
            synchronized (out) { // a stream is not thread-safe: a change and the refresh may meet
                out.onNext(response);
            }
        } catch (RuntimeException gone) {
            streams.remove(out); // cancelled between the look and the send
        }
    }

    NodeWatchResourcesResponse now() {
        long seconds = clock.instant().getEpochSecond();
        NodeWatchResourcesResponse.Builder b = NodeWatchResourcesResponse.newBuilder();
        for (Gpu g : hardware.gpus()) {
            boolean healthy = health.healthy(g.index());
            b.addDevices(DeviceHealth.newBuilder()
                    .setDevice(DeviceIdentifier.newBuilder()
                            .setPoolName(pool)
                            .setDeviceName(DraNames.deviceName(g.index())))
                    .setHealth(healthy ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
                    .setLastUpdatedTime(seconds)
                    .setHealthCheckTimeoutSeconds(TIMEOUT.toSeconds())
                    .setMessage(healthy ? "" : health.reason(g.index())));
        }
        return b.build();
    }

    /** Ends every stream (kubelet opens a new one when the plugin is back). */
    @Override
    public void close() {
        refresh.shutdownNow();
        streams.forEach(out -> {
            try {
                synchronized (out) {
                    out.onCompleted();
                }
            } catch (RuntimeException gone) {
                // already cancelled
            }
        });
        streams.clear();
    }
}
