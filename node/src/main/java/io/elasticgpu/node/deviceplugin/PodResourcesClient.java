package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.allocation.KubeletRecords;
import io.elasticgpu.node.podresources.api.ContainerDevices;
import io.elasticgpu.node.podresources.api.ContainerResources;
import io.elasticgpu.node.podresources.api.ListPodResourcesRequest;
import io.elasticgpu.node.podresources.api.PodResources;
import io.elasticgpu.node.podresources.api.PodResourcesListerGrpc;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Asks kubelet's pod-resources API which devices of our resources each container holds. kubelet starts that API a
 * moment after its device plugins' registration server, and admits pods in between: a call waits up to
 * {@link #ANSWER} for the socket to answer (reconnecting at once rather than after gRPC's growing backoff) instead of
 * failing the pod being admitted.
 */
public final class PodResourcesClient implements KubeletRecords, AutoCloseable {

    static final Duration ANSWER = Duration.ofSeconds(5);

    private final ManagedChannel channel;
    private final Path socket;
    private final Set<String> resources;

    public PodResourcesClient(Path socket, Set<String> resources) {
        this.socket = socket;
        this.channel = UnixSockets.connect(socket);
        this.resources = Set.copyOf(resources);
    }

    @Override
    public Map<ContainerKey, Map<String, List<String>>> list() {
        try {
            if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                channel.resetConnectBackoff(); // kubelet may be back: try now, not when the backoff says
            }
            var response = PodResourcesListerGrpc.newBlockingStub(channel)
                    .withWaitForReady()
                    .withDeadlineAfter(ANSWER.toMillis(), TimeUnit.MILLISECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance());
            Map<ContainerKey, Map<String, List<String>>> out = new HashMap<>();
            for (PodResources p : response.getPodResourcesList()) {
                for (ContainerResources c : p.getContainersList()) {
                    for (ContainerDevices d : c.getDevicesList()) {
                        if (resources.contains(d.getResourceName()) && d.getDeviceIdsCount() > 0) {
                            // kubelet lists a resource once per NUMA node its devices sit on
                            out.computeIfAbsent(
                                            new ContainerKey(p.getNamespace(), p.getName(), c.getName()),
                                            k -> new HashMap<>())
                                    .computeIfAbsent(d.getResourceName(), r -> new ArrayList<>())
                                    .addAll(d.getDeviceIdsList());
                        }
                    }
                }
            }
            return out;
        } catch (StatusRuntimeException e) {
            throw new AllocationException(
                    ("kubelet's pod-resources API at %s did not answer within %d s (%s); the agent needs it to "
                                    + "know which pod kubelet is admitting: mount /var/lib/kubelet/pod-resources "
                                    + "into the agent")
                            .formatted(socket, ANSWER.toSeconds(), e.getStatus()));
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
