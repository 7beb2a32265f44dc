package io.elasticgpu.node.agent;

import static io.elasticgpu.node.agent.GpuPods.container;
import static io.elasticgpu.node.agent.GpuPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.isolation.MpsControl;
import io.elasticgpu.node.isolation.MpsDirs;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.isolation.MpsStandIn;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.ContainerResult;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent against kubelet's own device manager and pod-resources server (the Go kubelet driver): the real
 * registration, ListAndWatch, GetPreferredAllocation and Allocate calls in kubelet's order, for real pod specs.
 */
class NodeAgentIT {

    private static final String MEM = ResourceNames.GPU_MEMORY;
    private static final String CORE = ResourceNames.GPU_CORE;
    private static final String GPU = ResourceNames.GPU;
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static Path binary;

    private KubeletDriver kubelet;
    private SimulatedBackend gpus;
    private TestCluster cluster;
    private NodeAgent agent;

    @BeforeAll
    static void driverBinary() {
        binary = DriverBinary.requireOrSkip();
    }

    private void start(Hardware hw, AgentConfig.Mode mode) {
        start(hw, mode, IsolationConfig.NONE, InstantSource.system());
    }

    private void start(Hardware hw, AgentConfig.Mode mode, IsolationConfig isolation, InstantSource clock) {
        kubelet = KubeletDriver.start(binary);
        AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                .withPluginDir(kubelet.pluginDir())
                .withPodResourcesSocket(kubelet.podResourcesSocket())
                .withMode(mode)
                .withMemoryBlockMib(64)
                .withCompatibility(false)
                .withIsolation(isolation)
                .withHealth(new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMillis(300)))
                .build();
        gpus = SimulatedBackend.of(hw);
        cluster = new TestCluster(config);
        agent = NodeAgent.start(config, gpus, cluster, clock);
        awaitAllRegistered();
    }

    /** A clock the test moves. */
    private static final class TestClock implements InstantSource {
        private volatile Instant now = Instant.parse("2026-11-27T10:00:00Z");

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }
    }

    /** Every plugin registered and its devices listed, as kubelet's node status would show. */
    private void awaitAllRegistered() {
        await().atMost(WAIT).untilAsserted(() -> {
            var capacity = kubelet.capacity();
            for (var r : agent.resources()) {
                long n = r.kind() == io.elasticgpu.node.deviceplugin.AdvertisedResource.Kind.WHOLE
                        ? gpus.discover().gpus().size()
                        : gpus.discover().gpus().stream()
                                .mapToLong(g -> r.devicesOn(g.memoryMib()))
                                .sum();
                assertThat(capacity.allocatable(r.name())).as(r.name()).isEqualTo(n);
            }
        });
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        if (mpsRoot != null) {
            MpsStandIn.killAll(mpsRoot);
        }
    }

    @TempDir
    Path work;

    private Path mpsRoot;

    @Test
    void withIsolationByMpsASliceGetsADaemonOfItsOwnHoldingItsShareAndTheDaemonEndsWithThePod() {
        mpsRoot = work.resolve("mps");
        TestClock clock = new TestClock();
        IsolationConfig mps =
                IsolationConfig.mps(MpsStandIn.install(work.resolve("bin")).program(), mpsRoot);
        start(cards(4, 16_384, Topology.uniform(4, Link.UNKNOWN)), AgentConfig.Mode.SLICES, mps, clock);
        // 64 blocks of 64 MiB = 4,096 MiB and 30 % on card 1, run by two CUDA processes: 2,048 MiB and 15 % each, a
        // memory limit of 1,024 MiB after the context reserve (1,024 MiB by default)
        Pod train = new PodBuilder(pod(
                        "train",
                        1,
                        List.of(),
                        List.of(container("main", Map.of(MEM, "64", CORE, "30"))),
                        Map.of("main", List.of(slice(1, 300, 4096)))))
                .editMetadata()
                .addToAnnotations(MpsLimits.PROCESSES_ANNOTATION, "2")
                .endMetadata()
                .build();
        cluster.pods.add(train);

        ContainerResult c = admitted(train, "main");

        assertThat(c.envs())
                .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps")
                .doesNotContainKeys("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
        assertThat(cluster.isolationLabel).isEqualTo("mps-per-share"); // no MPS v3 in the stand-in: auto picked it
        assertThat(cluster.isolationJson)
                .startsWith(
                        "{\"layout\":\"per-share\",\"memory\":\"mps\",\"bypass\":\"agent\",\"why\":\"auto: no MPS v3");
        var servers = agent.isolation().orElseThrow().servers();
        assertThat(servers.daemons())
                .isEqualTo(1); // kubelet's two calls (memory, compute) for one container: one daemon
        MpsDirs dirs = new MpsDirs(mpsRoot.resolve(servers.shares().getFirst().key()));
        assertThat(c.mounts())
                .extracting(m -> m.hostPath() + " -> " + m.containerPath())
                .containsExactlyInAnyOrder(
                        dirs.pipe() + " -> /tmp/nvidia-mps",
                        dirs.shm() + " -> /dev/shm",
                        "/dev/null -> /var/run/nvidia-container-devices/GPU-00000001-aaaa-bbbb-cccc-000000000000");
        assertThat(MpsStandIn.environment(dirs))
                .contains(
                        "CUDA_VISIBLE_DEVICES=GPU-00000001-aaaa-bbbb-cccc-000000000000",
                        "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=15",
                        "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=1024M");
        assertThat(MpsStandIn.commands(dirs))
                .startsWith("set_default_active_thread_percentage 15", "set_default_device_pinned_mem_limit 0 1024M");

        var isolation = agent.isolation().orElseThrow();
        clock.advance(MpsIsolation.GRACE.plusSeconds(1));
        assertThat(isolation.retainNow())
                .as("kubelet still lists the container")
                .isEmpty();
        kubelet.remove(train.getMetadata().getUid());
        assertThat(isolation.retainNow())
                .as("the API still shows the pod holding its cards (a kubelet restarting lists"
                        + " nothing for a moment)")
                .isEmpty();
        cluster.pods.remove(train);
        assertThat(isolation.retainNow()).hasSize(1);
        assertThat(servers.daemons()).isZero();
        assertThat(dirs.share()).doesNotExist();
    }

    @Test
    void withIsolationByMpsAnAgentRestartedWhileThePodRunsAdoptsItsDaemonAndStartsNoSecond() {
        mpsRoot = work.resolve("mps");
        TestClock clock = new TestClock();
        IsolationConfig mps =
                IsolationConfig.mps(MpsStandIn.install(work.resolve("bin")).program(), mpsRoot);
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.SLICES, mps, clock);
        Pod infer = pod(
                "infer",
                1,
                List.of(),
                List.of(container("main", Map.of(MEM, "32"))),
                Map.of("main", List.of(slice(0, 0, 2048))));
        cluster.pods.add(infer);
        admitted(infer, "main");
        MpsDirs dirs = new MpsDirs(mpsRoot.resolve(
                agent.isolation().orElseThrow().servers().shares().getFirst().key()));
        long pid = MpsControl.pid(dirs.pipe());

        agent.close(); // the agent goes (a crash, an upgrade); the daemon serves on
        TestCluster same = cluster;
        agent = NodeAgent.start(
                AgentConfig.builder(GpuPods.NODE)
                        .withPluginDir(kubelet.pluginDir())
                        .withPodResourcesSocket(kubelet.podResourcesSocket())
                        .withMemoryBlockMib(64)
                        .withCompatibility(false)
                        .withIsolation(mps)
                        .build(),
                gpus,
                same,
                clock);
        var isolation = agent.isolation().orElseThrow();
        isolation.round();
        clock.advance(MpsIsolation.GRACE.plusSeconds(1));

        assertThat(isolation.retainNow())
                .as("kubelet still lists the container")
                .isEmpty();
        assertThat(isolation.servers().daemons()).isEqualTo(1);
        assertThat(MpsControl.pid(dirs.pipe())).isEqualTo(pid);
        assertThat(MpsStandIn.commands(dirs))
                .filteredOn(l -> l.startsWith("set_default_active"))
                .hasSize(1);
    }

    static Hardware cards(int n, long memoryMib, Topology topology) {
        List<Gpu> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new Gpu(
                    i,
                    "GPU-%08d-aaaa-bbbb-cccc-000000000000".formatted(i),
                    "Tesla T4",
                    memoryMib,
                    "00000000:%02X:00.0".formatted(i + 1),
                    i,
                    i < n / 2 ? 0 : 1,
                    false));
        }
        return new Hardware("570.86.15", list, topology);
    }

    private static Share slice(int card, int milli, long memoryMib) {
        return new Share(card, "GPU-%08d-aaaa-bbbb-cccc-000000000000".formatted(card), milli, memoryMib);
    }

    private static int card(ContainerResult c) {
        assertThat(c.envs()).as("environment of %s", c).containsKey("ELASTICGPU_CARD_INDEX");
        return Integer.parseInt(c.envs().get("ELASTICGPU_CARD_INDEX"));
    }

    private ContainerResult admitted(Pod p, String container) {
        Admission a = kubelet.admit(p);
        assertThat(a).as("admission of %s", p.getMetadata().getName()).isInstanceOf(Admission.Admitted.class);
        return ((Admission.Admitted) a).container(container);
    }

    @Test
    void podsOfOneShapeAdmittedNewestFirstStayWithinCapacityAndTheirAnnotationsSayWhatTheyGot() {
        start(cards(4, 16_384, Topology.uniform(4, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // the extender put two 8 GiB slices on each 16 GiB card
            pods.add(pod(
                    "p" + i,
                    1000 + i,
                    List.of(),
                    List.of(container("main", Map.of(MEM, "128"))),
                    Map.of("main", List.of(slice(i / 2, 0, 8192)))));
        }
        cluster.pods.addAll(pods);
        Map<String, Integer> told = new HashMap<>();
        int[] perCard = new int[4];
        for (Pod p : pods.reversed()) { // kubelet admits them in the opposite order to the extender's
            int c = card(admitted(p, "main"));
            told.put(p.getMetadata().getName(), c);
            perCard[c]++;
        }

        assertThat(perCard).containsExactly(2, 2, 2, 2);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(cluster.recorded).hasSize(8);
            told.forEach((pod, c) -> assertThat(
                            cluster.recorded.get(pod).get("main").getFirst().card())
                    .as(pod)
                    .isEqualTo(c));
            assertThat(cluster.complete).containsOnlyKeys(told.keySet()).doesNotContainValue(false);
        });
    }

    @Test
    void aContainerAskingMemoryAndComputeGetsBothSharesOnOneCardWhicheverResourceKubeletAsksFirst() {
        start(cards(4, 16_384, Topology.uniform(4, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        Pod other = pod(
                "other",
                1,
                List.of(),
                List.of(container("main", Map.of(CORE, "30"))),
                Map.of("main", List.of(slice(0, 300, 0))));
        Pod both = pod(
                "both",
                2,
                List.of(),
                List.of(container("main", Map.of(MEM, "64", CORE, "30"))),
                Map.of("main", List.of(slice(2, 300, 4096))));
        cluster.pods.addAll(List.of(other, both));

        // kubelet asks for a container's resources in map order: when gpu-core comes first the call could be for
        // either pod, and the older one's plan (card 0) is answered; the gpu-memory call that follows settles it.
        ContainerResult c = admitted(both, "main");
        ContainerResult o = admitted(other, "main");

        int card = card(c);
        assertThat(card).isIn(0, 2);
        assertThat(c.envs())
                .containsEntry("ELASTICGPU_CORE_PERCENT", "30")
                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096")
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-%08d-aaaa-bbbb-cccc-000000000000".formatted(card));
        assertThat(c.devices(MEM)).hasSize(64);
        assertThat(card(o)).as("the other pod gets the card left").isEqualTo(card == 0 ? 2 : 0);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(cluster.recorded).containsKeys("both", "other");
            assertThat(cluster.recorded.get("both").get("main"))
                    .singleElement()
                    .isEqualTo(new Share(card, "GPU-%08d-aaaa-bbbb-cccc-000000000000".formatted(card), 300, 4096));
            assertThat(cluster.recorded.get("other").get("main").getFirst().card())
                    .isEqualTo(card == 0 ? 2 : 0);
        });
    }

    @Test
    void initContainersSidecarsAndAppContainersEachGetTheirOwnPlan() {
        start(cards(4, 16_384, Topology.uniform(4, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        Container setup = container("setup", Map.of(MEM, "16"));
        Container sidecar = container("agent", Map.of(MEM, "16"));
        sidecar.setRestartPolicy("Always");
        Map<String, List<Share>> plan = new LinkedHashMap<>();
        plan.put("setup", List.of(slice(1, 0, 1024)));
        plan.put("agent", List.of(slice(3, 0, 1024)));
        plan.put("train", List.of(slice(1, 0, 4096)));
        Pod p = pod("mixed", 1, List.of(setup, sidecar), List.of(container("train", Map.of(MEM, "64"))), plan);
        cluster.pods.add(p);

        Admission.Admitted a = (Admission.Admitted) kubelet.admit(p);

        assertThat(card(a.container("setup"))).isEqualTo(1);
        assertThat(card(a.container("agent"))).isEqualTo(3);
        assertThat(card(a.container("train"))).isEqualTo(1);
        assertThat(a.container("train").envs()).containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(cluster.complete)
                        .as("recorded %s", cluster.recorded)
                        .containsEntry("mixed", true));
    }

    @Test
    void aFourCardPodGetsOneNvlinkIslandThroughPreferredAllocation() {
        Topology.Builder t = Topology.builder(8);
        for (int a = 0; a < 8; a++) {
            for (int b = a + 1; b < 8; b++) {
                if (a / 4 == b / 4) {
                    t.link(a, b, Link.nvlink(12));
                }
            }
        }
        start(cards(8, 16_384, t.build()), AgentConfig.Mode.SLICES);
        List<Share> island =
                List.of(slice(4, 1000, 16_384), slice(5, 1000, 16_384), slice(6, 1000, 16_384), slice(7, 1000, 16_384));
        Pod p = pod("train", 1, List.of(), List.of(container("main", Map.of(GPU, "4"))), Map.of("main", island));
        cluster.pods.add(p);

        ContainerResult c = admitted(p, "main");

        assertThat(c.devices(GPU))
                .containsExactlyInAnyOrder(island.stream().map(Share::uuid).toArray(String[]::new));
        assertThat(c.envs()).containsEntry("ELASTICGPU_CARD_INDEX", "4,5,6,7");
    }

    @Test
    void afterAKubeletRestartThePluginsRegisterAgainAndEarlierAllocationsStay() {
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        Pod first = pod(
                "first",
                1,
                List.of(),
                List.of(container("main", Map.of(MEM, "64"))),
                Map.of("main", List.of(slice(0, 0, 4096))));
        cluster.pods.add(first);
        admitted(first, "main");

        kubelet.restart();
        awaitAllRegistered();
        Pod second = pod(
                "second",
                2,
                List.of(),
                List.of(container("main", Map.of(MEM, "64"))),
                Map.of("main", List.of(slice(1, 0, 4096))));
        cluster.pods.add(second);

        assertThat(card(admitted(second, "main"))).isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.recorded).containsKeys("first", "second"));
        // What Prometheus would see: both calls answered, the plugin registered twice, a slice held on each card.
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(metrics())
                        .contains(
                                "egpu_node_agent_allocate_calls_total{outcome=\"ok\",resource=\"%s\"} 2".formatted(MEM),
                                "egpu_node_agent_plugin_registered{resource=\"%s\"} 1".formatted(MEM),
                                "egpu_node_agent_kubelet_reregistrations_total{resource=\"%s\"} 1".formatted(MEM),
                                "egpu_node_agent_card_memory_allocated_mib{card=\"1\",node=\"%s\""
                                        .formatted(GpuPods.NODE)));
    }

    private String metrics() throws java.io.IOException {
        var out = new java.io.ByteArrayOutputStream();
        io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create()
                .write(out, agent.metrics().registry().scrape());
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aDeletedPluginSocketIsServedAndRegisteredAgain() throws Exception {
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        Path socket = kubelet.pluginDir().resolve("egpu-elasticgpu.io-gpu-memory.sock");
        assertThat(socket).exists();

        Files.delete(socket);

        await().atMost(WAIT).until(() -> Files.exists(socket));
        Pod p = pod(
                "after",
                1,
                List.of(),
                List.of(container("main", Map.of(MEM, "64"))),
                Map.of("main", List.of(slice(1, 0, 4096))));
        cluster.pods.add(p);
        await().atMost(WAIT).untilAsserted(() -> {
            Admission a = kubelet.admit(p);
            if (!(a instanceof Admission.Admitted)) {
                kubelet.remove(p.getMetadata().getUid()); // not re-registered yet: kubelet refused; try again
            }
            assertThat(a).isInstanceOf(Admission.Admitted.class);
        });
    }

    @Test
    void anAgentStartedBeforeKubeletRegistersOnceKubeletIsThere() throws Exception {
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "kubelet");
        Files.createDirectories(KubeletDriver.pluginDirIn(work));
        Hardware hw = cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN));
        AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                .withPluginDir(KubeletDriver.pluginDirIn(work))
                .withPodResourcesSocket(KubeletDriver.podResourcesSocketIn(work))
                .withMemoryBlockMib(64)
                .withCompatibility(false)
                .build();
        gpus = SimulatedBackend.of(hw);
        cluster = new TestCluster(config);
        agent = NodeAgent.start(
                config, gpus, cluster, InstantSource.system()); // no kubelet.sock yet: retries, backing off
        assertThat(agent.registered()).isFalse();

        kubelet = KubeletDriver.start(binary, work); // kubelet starts, deleting the sockets it finds, as it does

        awaitAllRegistered();
        assertThat(agent.registered()).isTrue();
    }

    @Test
    void stoppingTheAgentRemovesItsSocketsSoKubeletStopsOfferingTheDevices() {
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        List<Path> sockets = agent.resources().stream()
                .map(r -> kubelet.pluginDir().resolve(r.socketName()))
                .toList();
        assertThat(sockets).allMatch(Files::exists);

        agent.close(); // what the shutdown hook does on SIGTERM
        agent = null;

        assertThat(sockets).noneMatch(Files::exists);
        await().atMost(WAIT).until(() -> kubelet.capacity().allocatable(GPU) == 0);
    }

    @Test
    void aCardWithACriticalXidLeavesServiceAtOnceAndReturnsAfterAQuietPeriod() {
        start(cards(4, 16_384, Topology.uniform(4, Link.UNKNOWN)), AgentConfig.Mode.SLICES);

        gpus.inject(new GpuEvent.Xid(1, 79));

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(kubelet.capacity().allocatable(GPU)).isEqualTo(3);
            assertThat(cluster.lastHealth[1]).as("published unhealthy").isFalse();
        });
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(kubelet.capacity().allocatable(GPU)).isEqualTo(4);
            assertThat(cluster.lastHealth[1]).as("published healthy again").isTrue();
        });
    }

    @Test
    void anApplicationXidLeavesTheCardInService() {
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.SLICES);
        int published = cluster.publications.get();

        gpus.inject(new GpuEvent.Xid(0, 13));
        gpus.inject(new GpuEvent.Xid(1, 79)); // a marker: once card 1 is out, the Xid 13 has been handled

        await().atMost(WAIT).until(() -> kubelet.capacity().allocatable(GPU) == 1);
        assertThat(agent.health().healthy(0)).isTrue();
        assertThat(cluster.publications.get()).isEqualTo(published + 1);
    }

    @Test
    void inReplicasModeContainersGoToTheLeastLoadedCards() {
        start(cards(2, 16_384, Topology.uniform(2, Link.UNKNOWN)), AgentConfig.Mode.REPLICAS);
        List<Integer> given = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Pod p = pod("r" + i, i, List.of(), List.of(container("main", Map.of(GPU, "1"))), Map.of());
            given.add(card(admitted(p, "main")));
        }
        Pod two = pod("two", 9, List.of(), List.of(container("main", Map.of(GPU, "2"))), Map.of());

        assertThat(given).as("alternating, each card's load kept even").containsExactly(0, 1, 0, 1);
        assertThat(admitted(two, "main").envs()).containsEntry("ELASTICGPU_CARD_INDEX", "0,1");
    }
}
