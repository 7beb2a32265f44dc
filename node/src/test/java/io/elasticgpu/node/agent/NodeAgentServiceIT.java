package io.elasticgpu.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.http.ListenAddress;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NodeAgentService}, the one way the node agent starts (egpu node-agent and the local cluster's demo), in this
 * process: against kubelet's own device manager (the Go kubelet driver) it serves metrics beside the registered
 * agent, and closing it ends both; a metrics port already taken stops it before anything else starts.
 */
class NodeAgentServiceIT {

    private static final Hardware ONE_T4 = new Hardware(
            "570.86.15",
            List.of(new Gpu(0, "GPU-0", "Tesla T4", 15_360, "00000000:01:00.0", 0, 0, false)),
            Topology.uniform(1, Link.UNKNOWN));

    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path work;

    @Test
    void theServiceServesMetricsBesideTheRegisteredAgentAndClosingItEndsBoth() throws Exception {
        try (KubeletDriver kubelet = KubeletDriver.start(DriverBinary.requireOrSkip());
                SimulatedBackend gpus = SimulatedBackend.of(ONE_T4)) {
            AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                    .withPluginDir(kubelet.pluginDir())
                    .withPodResourcesSocket(kubelet.podResourcesSocket())
                    .withCompatibility(false)
                    .withMetricsListen(Optional.of(new ListenAddress("127.0.0.1", 0)))
                    .build();

            NodeAgentService service =
                    NodeAgentService.start(config, gpus, new TestCluster(config), InstantSource.system());
            NodeAgent agent = service.devicePlugin().orElseThrow();
            int port = service.metricsPort().orElseThrow();
            List<Path> sockets = agent.resources().stream()
                    .map(r -> kubelet.pluginDir().resolve(r.socketName()))
                    .toList();
            try {
                await().atMost(Duration.ofSeconds(30)).until(agent::registered);
                assertThat(get(port, "/metrics").body()).contains("egpu_node_agent_cards");
                assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
                assertThat(sockets).isNotEmpty().allMatch(Files::exists);
            } finally {
                service.close();
            }

            assertThat(sockets).as("the plugin sockets, removed with the agent").noneMatch(Files::exists);
            assertThat(bindable(port)).as("the metrics port, free again").isTrue();
        }
    }

    @Test
    void aTakenMetricsPortStopsTheServiceBeforeTheAgentStarts() throws Exception {
        Path pluginDir = Files.createDirectories(work.resolve("device-plugins"));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                SimulatedBackend gpus = SimulatedBackend.of(ONE_T4)) {
            AgentConfig config = AgentConfig.builder(GpuPods.NODE)
                    .withPluginDir(pluginDir)
                    .withPodResourcesSocket(work.resolve("kubelet.sock"))
                    .withMetricsListen(Optional.of(new ListenAddress("127.0.0.1", taken.getLocalPort())))
                    .build();
            TestCluster cluster = new TestCluster(config);

            assertThatThrownBy(() -> NodeAgentService.start(config, gpus, cluster, InstantSource.system()))
                    .isInstanceOf(UncheckedIOException.class);
            assertThat(cluster.publications).as("nothing published").hasValue(0);
            try (var left = Files.list(pluginDir)) {
                assertThat(left).as("no plugin socket served").isEmpty();
            }
        }
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
