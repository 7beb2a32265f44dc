package io.elasticgpu.node.deviceplugin;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerPreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.ContainerPreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.Device;
import io.elasticgpu.node.deviceplugin.api.ListAndWatchResponse;
import io.elasticgpu.node.deviceplugin.api.NUMANode;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationRequest;
import io.elasticgpu.node.deviceplugin.api.PreferredAllocationResponse;
import io.elasticgpu.node.deviceplugin.api.TopologyInfo;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.MigDevice;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MIG devices of one profile, as NVIDIA's device plugin offers them in its mixed strategy
 * ({@code nvidia.com/mig-<profile>}): each MIG device a device of its own, its id the MIG device's UUID, so kubelet
 * picks them and no plan is needed (no two containers can be told apart wrongly: every device is one instance). A
 * container is told the UUIDs of its MIG devices and nothing else of their cards. A MIG device is healthy while its
 * card stays in MIG mode (no change waiting for a reset) and has had no critical event.
 */
public final class MigDevicePlugin extends DevicePlugin {

    private static final Logger LOG = LoggerFactory.getLogger(MigDevicePlugin.class);

    private final String profile;
    private final IntPredicate quiet;
    private final Map<String, Gpu> cardByDevice = new LinkedHashMap<>();

    private MigDevicePlugin(String profile, Hardware hardware, IntPredicate quiet) {
        this.profile = profile;
        this.quiet = quiet;
        for (Gpu g : hardware.gpus()) {
            for (MigDevice d : g.mig().devices()) {
                if (d.profile().equals(profile)) {
                    cardByDevice.put(d.uuid(), g);
                }
            }
        }
    }

    /**
     * One plugin per profile of the MIG devices on {@code hardware}, by name.
     *
     * @param quiet whether a card has had no critical event lately ({@code CardHealth.quiet})
     */
    public static List<MigDevicePlugin> of(Hardware hardware, IntPredicate quiet) {
        TreeSet<String> profiles = new TreeSet<>();
        hardware.gpus().forEach(g -> g.mig().devices().forEach(d -> profiles.add(d.profile())));
        return profiles.stream()
                .map(p -> new MigDevicePlugin(p, hardware, quiet))
                .toList();
    }

    @Override
    public String resourceName() {
        return ResourceNames.NVIDIA_MIG_PREFIX + profile;
    }

    private boolean serves(Gpu g) {
        return g.mig().enabled() && g.mig().pending() && quiet.test(g.index());
    }

    @Override
    ListAndWatchResponse devices() {
        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
        cardByDevice.forEach((uuid, g) -> {
            Device.Builder d = Device.newBuilder().setID(uuid).setHealth(serves(g) ? "Healthy" : "Unhealthy");
            if (g.numaNode() >= 0) {
                d.setTopology(
                        TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(g.numaNode())));
            }
            b.addDevices(d);
        });
        return b.build();
    }

    /** Those kubelet must include, then the others it offers, on as few cards as it can. */
    @Override
    public void getPreferredAllocation(
            PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
        PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
            LinkedHashSet<String> chosen = new LinkedHashSet<>(c.getMustIncludeDeviceIDsList());
            List<String> rest = new ArrayList<>(c.getAvailableDeviceIDsList());
            rest.sort(java.util.Comparator.comparingInt(
                    id -> cardByDevice.containsKey(id) ? cardByDevice.get(id).index() : Integer.MAX_VALUE));
            for (String id : rest) {
                if (chosen.size() >= c.getAllocationSize()) {
                    break;
                }
                chosen.add(id);
            }
            b.addContainerResponses(
                    ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(chosen));
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        AllocateResponse.Builder b = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
            List<String> unknown = c.getDevicesIdsList().stream()
                    .filter(id -> !cardByDevice.containsKey(id))
                    .toList();
            if (!unknown.isEmpty()) {
                String why = "%s: %s are not MIG devices of this node of that profile; it has %s"
                        .formatted(resourceName(), unknown, cardByDevice.keySet());
                LOG.warn("allocate refused: {}", why);
                out.onError(Status.FAILED_PRECONDITION.withDescription(why).asRuntimeException());
                return;
            }
            b.addContainerResponses(answer(c.getDevicesIdsList()));
            LOG.info("allocate resource={} devices={}", resourceName(), c.getDevicesIdsList());
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    private ContainerAllocateResponse answer(List<String> ids) {
        return ContainerAllocateResponse.newBuilder()
                .putEnvs("NVIDIA_VISIBLE_DEVICES", String.join(",", ids))
                .putEnvs(
                        "ELASTICGPU_CARD_INDEX",
                        ids.stream()
                                .map(id -> Integer.toString(cardByDevice.get(id).index()))
                                .collect(Collectors.joining(",")))
                .putEnvs("ELASTICGPU_MIG_PROFILE", profile)
                .addAllMounts(ContainerEnvironment.deviceList(ids))
                .build();
    }
}
