package io.elasticgpu.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.deviceplugin.api.AllocateRequest;
import io.elasticgpu.node.deviceplugin.api.AllocateResponse;
import io.elasticgpu.node.deviceplugin.api.ContainerAllocateRequest;
import io.elasticgpu.node.deviceplugin.api.Device;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.Mig;
import io.elasticgpu.node.discovery.MigDevice;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class MigDevicePluginTest {

    private static final String H100 = "NVIDIA H100 80GB HBM3";

    private final Set<Integer> loud = ConcurrentHashMap.newKeySet();
    private final Hardware hardware = new Hardware(
            "570.86.15",
            List.of(
                    new Gpu(0, "GPU-0", H100, 81559, "00000000:07:00.0", 0, 0, false),
                    new Gpu(
                            1,
                            "GPU-1",
                            H100,
                            81559,
                            "00000000:0F:00.0",
                            1,
                            1,
                            new Mig(
                                    true,
                                    true,
                                    List.of(
                                            new MigDevice("MIG-a", "3g.40gb", 1, 0, 4, 4, 3, 3, 40192),
                                            new MigDevice("MIG-b", "1g.10gb", 9, 0, 0, 1, 1, 1, 9856),
                                            new MigDevice("MIG-c", "1g.10gb", 10, 0, 1, 1, 1, 1, 9856))))),
            Topology.uniform(2, Link.UNKNOWN));
    private final List<MigDevicePlugin> plugins = MigDevicePlugin.of(hardware, card -> !loud.contains(card));

    @Test
    void onePluginPerProfileEachListingItsMigDevicesByUuidOnTheirCardsNumaNode() {
        assertThat(plugins)
                .extracting(DevicePlugin::resourceName)
                .containsExactly("nvidia.com/mig-1g.10gb", "nvidia.com/mig-3g.40gb");
        List<Device> devices = plugins.getFirst().devices().getDevicesList();
        assertThat(devices).extracting(Device::getID).containsExactly("MIG-b", "MIG-c");
        assertThat(devices).extracting(Device::getHealth).containsOnly("Healthy");
        assertThat(devices.getFirst().getTopology().getNodes(0).getID()).isEqualTo(1);
    }

    @Test
    void aCriticalEventOnTheCardMakesItsMigDevicesUnhealthy() {
        loud.add(1);

        assertThat(plugins.getLast().devices().getDevicesList())
                .extracting(Device::getHealth)
                .containsExactly("Unhealthy");
    }

    @Test
    void anIdThatIsNotOneOfThisProfilesMigDevicesIsRefusedNamingIt() {
        Answer answer = allocate(plugins.getLast(), "MIG-b");

        assertThat(answer.error).isInstanceOf(StatusRuntimeException.class);
        assertThat(answer.error.getMessage())
                .contains("FAILED_PRECONDITION")
                .contains("nvidia.com/mig-3g.40gb: [MIG-b] are not MIG devices of this node of that profile;")
                .contains("it has [MIG-a]");
        assertThat(answer.values).isEmpty();
    }

    @Test
    void aContainerIsToldItsMigDevicesAndNothingElseOfTheCardByVariableAndByDeviceListMount() {
        Answer answer = allocate(plugins.getFirst(), "MIG-c");

        assertThat(answer.error).isNull();
        var container = answer.values.getFirst().getContainerResponses(0);
        assertThat(container.getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "MIG-c")
                .containsEntry("ELASTICGPU_CARD_INDEX", "1")
                .containsEntry("ELASTICGPU_MIG_PROFILE", "1g.10gb");
        assertThat(container.getMountsList())
                .extracting(m -> m.getHostPath() + " -> " + m.getContainerPath() + (m.getReadOnly() ? " ro" : ""))
                .containsExactly("/dev/null -> /var/run/nvidia-container-devices/MIG-c ro");
    }

    /** What {@code plugin} answers kubelet's {@code Allocate} of {@code id} for one container. */
    private static Answer allocate(MigDevicePlugin plugin, String id) {
        Answer answer = new Answer();
        plugin.allocate(
                AllocateRequest.newBuilder()
                        .addContainerRequests(
                                ContainerAllocateRequest.newBuilder().addDevicesIds(id))
                        .build(),
                answer);
        return answer;
    }

    private static final class Answer implements StreamObserver<AllocateResponse> {
        final List<AllocateResponse> values = new ArrayList<>();
        Throwable error;

        @Override
        public void onNext(AllocateResponse value) {
            values.add(value);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {}
    }
}
