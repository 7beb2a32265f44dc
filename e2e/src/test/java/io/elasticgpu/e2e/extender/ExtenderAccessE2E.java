package io.elasticgpu.e2e.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may call the extender: as the chart runs it, its verbs are served on 127.0.0.1 only, beside
 * kube-scheduler in one pod, and only {@code /metrics}, {@code /healthz} and {@code /readyz} on the address other
 * hosts reach. The real kube-scheduler, on the same loopback, schedules through it; a caller from this machine's
 * network address cannot reach {@code /bind} at all, finds no {@code /bind} on the metrics address, and changes
 * nothing; Prometheus and probes still read what they read.
 */
@ExtendWith(ControlPlaneExtension.class)
class ExtenderAccessE2E {

    private static ControlPlane controlPlane;
    private static EgpuProcess extender;
    private static int metricsPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startExtenderAsTheChartDoes(ControlPlane cp) throws IOException {
        controlPlane = cp;
        metricsPort = Ports.free();
        extender = EgpuProcess.start(
                "scheduler",
                List.of("--kubeconfig", cp.kubeconfig().toString(), "--metrics-listen", "0.0.0.0:" + metricsPort),
                cp.workDir().resolve("logs").resolve("extender-access.log"));
        cp.restartScheduler(Path.of("src/test/resources/scheduler/extender.yaml"), extender.url());
    }

    @AfterAll
    static void stop() {
        controlPlane.restartScheduler(null);
        if (extender != null) {
            extender.close();
        }
    }

    @Test
    void onlyKubeSchedulerBesideItCanBindAndMetricsStayReadable(TestCluster cluster) throws Exception {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a100", 2, "A100", 40_960)))
                .getFirst();
        create(cluster, "scheduled", "default-scheduler");
        // Nobody schedules this one: only a caller of /bind could place it.
        create(cluster, "target", "nobody");
        await().atMost(Duration.ofSeconds(60)).until(() -> node.equals(nodeOf(cluster, "scheduled")));

        String bind = """
                {"PodName": "target", "PodNamespace": "%s", "PodUID": "%s", "Node": "%s"}""".formatted(
                cluster.namespace(), pod(cluster, "target").getMetadata().getUid(), node);
        assertThat(listeningAddresses(extender.port())).as("the verbs' socket").containsExactly("127.0.0.1");
        Optional<InetAddress> outside = networkAddress();
        System.out.println("ExtenderAccessE2E: this machine's network address: "
                + outside.map(InetAddress::getHostAddress)
                        .orElse("none (only loopback): the socket check above stands for the connection attempt"));
        if (outside.isPresent()) {
            String host = outside.get().getHostAddress();
            assertThatThrownBy(() -> post("http://" + host + ":" + extender.port() + "/bind", bind))
                    .as("/bind from the network")
                    .isInstanceOf(ConnectException.class);
            assertThat(post("http://" + host + ":" + metricsPort + "/bind", bind)
                            .statusCode())
                    .isEqualTo(404);
            assertThat(get("http://" + host + ":" + metricsPort + "/metrics").body())
                    .contains("egpu_extender_request_seconds");
            assertThat(get("http://" + host + ":" + metricsPort + "/healthz").body())
                    .isEqualTo("ok");
        }
        assertThat(post("http://127.0.0.1:" + metricsPort + "/bind", bind).statusCode())
                .isEqualTo(404);
        assertThat(get("http://127.0.0.1:" + metricsPort + "/readyz").statusCode())
                .isEqualTo(200);

        Pod target = pod(cluster, "target");
        assertThat(target.getSpec().getNodeName()).as("the pod nobody may bind").isNull();
        assertThat(target.getMetadata().getAnnotations()).doesNotContainKey(Annotations.ALLOCATION);
        assertThat(nodeOf(cluster, "scheduled")).isEqualTo(node);
    }

    private static void create(TestCluster cluster, String name, String scheduler) {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(scheduler)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .withLimits(Map.of("elasticgpu.io/gpu", new Quantity("1")))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        cluster.client().pods().inNamespace(cluster.namespace()).resource(pod).create();
    }

    private static Pod pod(TestCluster cluster, String name) {
        return cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    private static String nodeOf(TestCluster cluster, String name) {
        return pod(cluster, name).getSpec().getNodeName();
    }

    private HttpResponse<String> post(String url, String body) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The first IPv4 address of an interface that is up and not loopback: where other hosts would reach us. */
    private static Optional<InetAddress> networkAddress() throws SocketException {
        return NetworkInterface.networkInterfaces()
                .filter(ExtenderAccessE2E::up)
                .filter(i -> !loopback(i))
                .flatMap(NetworkInterface::inetAddresses)
                .filter(Inet4Address.class::isInstance)
                .findFirst();
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp();
        } catch (SocketException e) {
            return false;
        }
    }

    private static boolean loopback(NetworkInterface i) {
        try {
            return i.isLoopback();
        } catch (SocketException e) {
            return true;
        }
    }

    /**
     * The local addresses of the sockets listening on {@code port}, from the kernel's tables (the JDK binds IPv6
     * sockets where it can, an IPv4 address appearing in /proc/net/tcp6 as ::ffff:a.b.c.d).
     */
    private static List<String> listeningAddresses(int port) throws IOException {
        String hexPort = ":%04X".formatted(port);
        return java.util.stream.Stream.of("/proc/net/tcp", "/proc/net/tcp6")
                .map(Path::of)
                .filter(Files::isReadable)
                .flatMap(ExtenderAccessE2E::lines)
                .map(String::trim)
                .map(l -> l.split("\\s+"))
                .filter(f -> f.length > 3 && f[1].endsWith(hexPort) && f[3].equals("0A"))
                .map(f -> address(f[1].substring(0, f[1].indexOf(':'))))
                .distinct()
                .toList();
    }

    private static java.util.stream.Stream<String> lines(Path table) {
        try {
            return Files.readAllLines(table).stream().skip(1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** An address as the tables write it: 32-bit words of hex, least significant byte first; v4-mapped as IPv4. */
    private static String address(String hex) {
        if (hex.length() == 32 && hex.startsWith("0000000000000000FFFF0000")) {
            return address(hex.substring(24));
        }
        if (hex.length() == 8) {
            long v = Long.parseLong(hex, 16);
            return "%d.%d.%d.%d".formatted(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff);
        }
        return hex.chars().allMatch(c -> c == '0')
                ? "::"
                : hex.equals("00000000000000000000000001000000") ? "::1" : hex;
    }
}
