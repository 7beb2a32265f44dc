package io.elasticgpu.node.kubelet;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.kubelet.Admission.Admitted;
import io.elasticgpu.node.kubelet.Admission.ContainerNotStarted;
import io.elasticgpu.node.kubelet.Admission.Rejected;
import io.elasticgpu.node.podresources.api.ContainerDevices;
import io.elasticgpu.node.podresources.api.ListPodResourcesRequest;
import io.elasticgpu.node.podresources.api.PodResources;
import io.elasticgpu.node.podresources.api.PodResourcesListerGrpc;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kubelet driver is a faithful peer: a device plugin registers with kubelet's own device manager, pods are
 * admitted or rejected with kubelet's own words, kubelet's pod-resources server reports the allocations, and a
 * kubelet restart keeps them through the checkpoint. Needs the driver binary: {@code -Degpu.kubelet.driver=<path>},
 * or Go to build it; without either the tests are skipped, unless {@code -Degpu.kubelet.driver.required=true}.
 */
class KubeletDriverIT {

    private static final String RESOURCE = "example.com/gpu";
    private static final List<String> CARDS = List.of("gpu-0", "gpu-1", "gpu-2", "gpu-3");
    private static final Duration REGISTRATION = Duration.ofSeconds(30);

    private static Path binary;

    private KubeletDriver kubelet;
    private FakeDevicePlugin plugin;

    @BeforeAll
    static void driverBinary() {
        binary = DriverBinary.requireOrSkip();
    }

    @BeforeEach
    void startKubelet() {
        kubelet = KubeletDriver.start(binary);
    }

    @AfterEach
    void stopAll() {
        if (plugin != null) {
            plugin.close();
        }
        kubelet.close();
    }

    @Test
    void registeredPluginsDevicesShowInTheNodesCapacity() {
        assertThat(kubelet.capacity().capacity()).isEmpty();

        registerPlugin();

        Capacity capacity = kubelet.capacity();
        assertThat(capacity.capacity(RESOURCE)).isEqualTo(4);
        assertThat(capacity.allocatable(RESOURCE)).isEqualTo(4);
        assertThat(capacity.deleted()).isEmpty();
    }

    @Test
    void podAskingTwoDevicesGetsTwoWithThePluginsEnvironmentAndPodResourcesListsThem() {
        registerPlugin();
        Pod pod = pod("trainer", 2);

        ContainerResult main = admitted(kubelet.admit(pod)).container("main");

        List<String> devices = main.devices(RESOURCE);
        assertThat(devices).hasSize(2).isSubsetOf(CARDS);
        assertThat(main.envs()).containsExactly(Map.entry(FakeDevicePlugin.ENV, String.join(",", devices)));
        assertThat(main.deviceSpecs())
                .extracting(ContainerResult.DeviceSpec::containerPath)
                .containsExactlyInAnyOrderElementsOf(
                        devices.stream().map(id -> "/dev/" + id).toList());
        assertThat(podResourcesDevices("trainer", "main")).containsExactlyInAnyOrderElementsOf(devices);
    }

    @Test
    void podAskingMoreThanAvailableIsRejectedWithKubeletsMessageAndFitsOnceOthersAreRemoved() {
        registerPlugin();
        Pod first = pod("first", 2);
        admitted(kubelet.admit(first));

        // 4 cards − 2 held by "first" = 2 available, 3 asked
        assertThat(kubelet.admit(pod("greedy", 3)))
                .isEqualTo(new Rejected(
                        Rejected.UNEXPECTED_ADMISSION_ERROR,
                        "Allocate failed due to requested number of devices unavailable for example.com/gpu. "
                                + "Requested: 3, Available: 2, which is unexpected"));
        assertThat(podResourcesPods()).containsExactly("first");

        kubelet.remove(first.getMetadata().getUid());

        // 4 cards − 0 held = 4 available, 3 asked
        assertThat(admitted(kubelet.admit(pod("greedy-again", 3)))
                        .container("main")
                        .devices(RESOURCE))
                .hasSize(3);
    }

    @Test
    void restartDropsTheRegistrationButKeepsAllocationsThroughTheCheckpoint() {
        registerPlugin();
        List<String> before =
                admitted(kubelet.admit(pod("survivor", 2))).container("main").devices(RESOURCE);

        kubelet.restart();

        assertThat(kubelet.capacity().allocatable(RESOURCE)).isZero();
        assertThat(kubelet.pluginDir().resolve(FakeDevicePlugin.SOCKET))
                .as("kubelet removes plugin sockets")
                .doesNotExist();
        assertThat(kubelet.admit(pod("too-early", 1)))
                .isEqualTo(new Rejected(
                        Rejected.UNEXPECTED_ADMISSION_ERROR,
                        "Allocate failed due to no healthy devices present; cannot allocate unhealthy devices "
                                + "example.com/gpu, "
                                + "which is unexpected"));
        assertThat(podResourcesDevices("survivor", "main")).containsExactlyInAnyOrderElementsOf(before);

        plugin.close();
        registerPlugin();

        // 4 cards − 2 still held by "survivor" = 2, both to "second"
        List<String> after =
                admitted(kubelet.admit(pod("second", 2))).container("main").devices(RESOURCE);
        Set<String> all = new HashSet<>(before);
        all.addAll(after);
        assertThat(all).containsExactlyInAnyOrderElementsOf(CARDS);
        assertThat(podResourcesDevices("survivor", "main")).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void failingPreStartContainerLeavesThePodAdmittedAndItsContainerNotStarted() {
        plugin = FakeDevicePlugin.failingPreStart(kubelet.pluginDir(), RESOURCE, CARDS, "card is resetting");
        plugin.register(kubelet.kubeletSocket());
        kubelet.await(RESOURCE, 4, REGISTRATION);

        assertThat(kubelet.admit(pod("unlucky", 1)))
                .isEqualTo(new ContainerNotStarted(
                        "main",
                        ContainerNotStarted.CREATE_CONTAINER_CONFIG_ERROR,
                        "device plugin PreStartContainer rpc failed with err: "
                                + "rpc error: code = FailedPrecondition desc = card is resetting"));
        assertThat(podResourcesPods()).containsExactly("unlucky");
    }

    private void registerPlugin() {
        plugin = FakeDevicePlugin.serve(kubelet.pluginDir(), RESOURCE, CARDS);
        plugin.register(kubelet.kubeletSocket());
        kubelet.await(RESOURCE, CARDS.size(), REGISTRATION);
    }

    private static Admitted admitted(Admission admission) {
        assertThat(admission).isInstanceOf(Admitted.class);
        return (Admitted) admission;
    }

    /** A pod in namespace default with one container, main, asking {@code devices} of {@link #RESOURCE}. */
    private static Pod pod(String name, int devices) {
        Quantity count = new Quantity(Integer.toString(devices));
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withUid(UUID.randomUUID().toString())
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .addToLimits(RESOURCE, count)
                .addToRequests(RESOURCE, count)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    private List<PodResources> podResources() {
        ManagedChannel channel = UnixSockets.connect(kubelet.podResourcesSocket());
        try {
            return PodResourcesListerGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(10, SECONDS)
                    .list(ListPodResourcesRequest.getDefaultInstance())
                    .getPodResourcesList();
        } finally {
            channel.shutdownNow();
        }
    }

    private List<String> podResourcesPods() {
        return podResources().stream().map(PodResources::getName).toList();
    }

    /** The {@link #RESOURCE} device ids kubelet's pod-resources List reports for one container. */
    private List<String> podResourcesDevices(String pod, String container) {
        return podResources().stream()
                .filter(p -> p.getNamespace().equals("default") && p.getName().equals(pod))
                .flatMap(p -> p.getContainersList().stream())
                .filter(c -> c.getName().equals(container))
                .flatMap(c -> c.getDevicesList().stream())
                .filter(d -> d.getResourceName().equals(RESOURCE))
                .flatMap((ContainerDevices d) -> d.getDeviceIdsList().stream())
                .toList();
    }
}
