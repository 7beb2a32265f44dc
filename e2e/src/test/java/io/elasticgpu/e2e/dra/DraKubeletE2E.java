package io.elasticgpu.e2e.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.deploy.RenderedChart;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRA-mode agent between its two real peers on a node: kube-scheduler's allocator (through the API server) and
 * kubelet's own DRA manager ({@code pkg/kubelet/cm/dra}, v1.36.3, in the Go kubelet driver) with kubelet's plugin
 * manager. The agent registers through kubelet's plugin registration directory; kubelet prepares the claims of
 * pods bound to the node (a ResourceClaimTemplate's, a named claim's, and the claim kube-scheduler made for a pod
 * asking {@code elasticgpu.io/gpu}) by calling NodePrepareResources, hands each container the CDI devices the agent
 * wrote, shows a card's health as the agent streams it, and unprepares them when the pod ends; across a kubelet restart
 * (which also wipes the node's
 * ResourceSlices, as kubelet does at startup) and an agent restart between prepare and unprepare.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraKubeletE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Duration REGISTRATION = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-26T10:00:00Z"));

    @Test
    void kubeletPreparesAndUnpreparesClaimsThroughTheAgentAcrossRestartsOfEither(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        applyTheChartsDeviceClasses(client);
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("kubelet", 2, "Tesla-T4", 15_360)))
                .getFirst();
        DraSliceE2E.withoutExtendedResources(client, node);
        Path cdi = dir.resolve("cdi");
        var pods = client.pods().inNamespace(cluster.namespace());
        var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
        try (KubeletDriver kubelet = KubeletDriver.startWithDra(
                driverBinary(), new KubeletDriver.Dra(cluster.controlPlane().kubeconfig(), node))) {
            DraConfig draConfig = new DraConfig(dir.resolve("plugin"), kubelet.pluginsRegistry(), cdi);
            Agent agent = new Agent(client, node, draConfig, now::get);
            try {
                kubelet.awaitDriver(DraNames.DRIVER, REGISTRATION);
                // kubelet tells the plugin (NotifyRegistrationStatus) right after it registered it
                await().atMost(REGISTRATION).until(agent.agent::registered);
                await().atMost(WAIT).until(() -> slice(client, node) != null);

                // One whole card through the extended resource first (the allocator takes gpu-0), then two shares
                // of gpu-1: a ResourceClaimTemplate's claim and a named claim.
                pods.resource(extendedResourcePod("whole")).create();
                awaitBound(pods, "whole", node);
                client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate.class)
                        .inNamespace(cluster.namespace())
                        .resource(new ResourceClaimTemplateBuilder()
                                .withNewMetadata()
                                .withName("share")
                                .endMetadata()
                                .withNewSpec()
                                .withSpec(share("8Gi", "40"))
                                .endSpec()
                                .build())
                        .create();
                claims.resource(new ResourceClaimBuilder()
                                .withNewMetadata()
                                .withName("b")
                                .endMetadata()
                                .withSpec(share("4Gi", "20"))
                                .build())
                        .create();
                // One after another, as DraSliceE2E found: b's first attempt then sees a's share allocated.
                pods.resource(claimPod("a", null, "share")).create();
                awaitBound(pods, "a", node);
                pods.resource(claimPod("b", "b", null)).create();
                awaitBound(pods, "b", node);

                // kubelet admits the three with the pods as the API server has them (claim names in their status).
                Pod whole = withClaimStatus(pods, "whole");
                Pod a = withClaimStatus(pods, "a");
                Pod b = withClaimStatus(pods, "b");
                var wholeMain = admitted(kubelet.admit(whole)).container("main");
                assertThat(wholeMain.devices(ResourceNames.GPU))
                        .as("the device manager leaves the DRA-backed resource to DRA")
                        .isEmpty();
                assertThat(wholeMain.cdiDevices()).hasSize(1);
                assertThat(devices(cdi, wholeMain.cdiDevices().getFirst()))
                        .as("the CDI device kubelet hands the container")
                        .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-" + node + "-0")
                        .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "15360")
                        .containsEntry("ELASTICGPU_CORE_PERCENT", "100");
                List<String> aDevices =
                        admitted(kubelet.admit(a)).container("main").cdiDevices();
                List<String> bDevices =
                        admitted(kubelet.admit(b)).container("main").cdiDevices();
                assertThat(aDevices)
                        .singleElement()
                        .satisfies(id -> assertThat(devices(cdi, id))
                                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-" + node + "-1")
                                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "8192")
                                .containsEntry("ELASTICGPU_CORE_PERCENT", "40"));
                assertThat(bDevices)
                        .singleElement()
                        .satisfies(id -> assertThat(devices(cdi, id))
                                .containsEntry("NVIDIA_VISIBLE_DEVICES", "GPU-" + node + "-1")
                                .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096")
                                .containsEntry("ELASTICGPU_CORE_PERCENT", "20"));
                assertThat(agent.agent.preparation().prepared()).hasSize(3);

                // Card 1 (a's and b's) reports a critical Xid that does not end its work: the agent streams it as
                // unhealthy (DRAResourceHealth) and kubelet shows it in a's and b's container status. Quiet for five
                // minutes, card 1 is healthy again. (Kubelet v1.36.3 reports health only for containers that name
                // their claims, so not for the extended-resource pod on card 0.)
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(health(kubelet, a, aDevices.getFirst()))
                                .isEqualTo("Healthy"));
                agent.gpus.inject(new GpuEvent.Xid(1, 92));
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(health(kubelet, a, aDevices.getFirst())).isEqualTo("Unhealthy");
                    assertThat(health(kubelet, b, bDevices.getFirst())).isEqualTo("Unhealthy");
                });
                now.set(now.get().plus(Duration.ofMinutes(5)));
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(health(kubelet, a, aDevices.getFirst()))
                                .isEqualTo("Healthy"));

                // Kubelet restarts (the node rebooted: /var/run/cdi is a tmpfs, b's spec is gone): its DRA manager
                // comes back from its checkpoint, re-registers the agent from the socket still in the registry, and
                // wipes the node's ResourceSlices, which the agent writes again. Recreating b's sandbox, kubelet
                // prepares b's claim again (its prepared mark is not checkpointed) and the agent answers from its own
                // checkpoint with the same device, its spec written again.
                String sliceUid = slice(client, node).getMetadata().getUid();
                deleteSpecOf(cdi, bDevices.getFirst());
                kubelet.restart();
                kubelet.awaitDriver(DraNames.DRIVER, REGISTRATION);
                await().atMost(WAIT)
                        .untilAsserted(() -> assertThat(slice(client, node))
                                .as("the agent's slice, written again")
                                .isNotNull()
                                .extracting(s -> s.getMetadata().getUid())
                                .isNotEqualTo(sliceUid));
                assertThat(slice(client, node).getSpec().getDevices())
                        .extracting(d -> d.getName())
                        .containsExactly("gpu-0", "gpu-1");
                // containsOnly, not containsExactly: kubelet v1.36.3 appends the re-prepared device to the one it
                // checkpointed and lists it twice (kubernetes/kubernetes#140471, fixed upstream by #140274 after
                // 1.36.3).
                assertThat(admitted(kubelet.sync(b.getMetadata().getUid()))
                                .container("main")
                                .cdiDevices())
                        .as("b's claim, prepared again after kubelet's restart")
                        .containsOnly(bDevices.getFirst());
                assertThat(devices(cdi, bDevices.getFirst()))
                        .as("b's spec, written again")
                        .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "4096");
                kubelet.remove(b.getMetadata().getUid());
                pods.withName("b").withGracePeriod(0).delete(); // terminated: kubelet has it deleted
                assertThat(cdiDevices(cdi))
                        .as("b's CDI spec removed by NodeUnprepareResources")
                        .doesNotContainKeys(bDevices.getFirst())
                        .containsKeys(
                                aDevices.getFirst(), wholeMain.cdiDevices().getFirst());

                // The agent restarts: while it is away kubelet cannot prepare a new pod's claim and says why; the
                // agent comes back from its checkpoint, takes c's claim as held too (reserved for a pod bound here,
                // so it counts against its card before kubelet prepares it), and kubelet's retry and the unprepare
                // of a claim prepared before the restart both go through it.
                agent.close();
                kubelet.awaitNoDriver(DraNames.DRIVER, REGISTRATION);
                claims.resource(new ResourceClaimBuilder()
                                .withNewMetadata()
                                .withName("c")
                                .endMetadata()
                                .withSpec(share("2Gi", "10"))
                                .build())
                        .create();
                pods.resource(claimPod("c", "c", null)).create();
                awaitBound(pods, "c", node);
                Pod c = withClaimStatus(pods, "c");
                assertThat(kubelet.admit(c))
                        .isEqualTo(new Admission.NotPrepared(
                                "prepare dynamic resources: DRA driver gpu.elasticgpu.io is not registered"));
                agent = new Agent(client, node, draConfig, now::get);
                kubelet.awaitDriver(DraNames.DRIVER, REGISTRATION);
                assertThat(agent.agent.preparation().prepared())
                        .as("claims from the checkpoint, and c's from the API")
                        .extracting(p -> p.claim().name())
                        .hasSize(3)
                        .contains("c");
                List<String> cDevices = admitted(kubelet.sync(c.getMetadata().getUid()))
                        .container("main")
                        .cdiDevices();
                assertThat(cDevices)
                        .singleElement()
                        .satisfies(id ->
                                assertThat(devices(cdi, id)).containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "2048"));
                for (Pod p : List.of(a, whole, c)) {
                    kubelet.remove(p.getMetadata().getUid());
                }
                assertThat(cdiDevices(cdi)).as("every CDI spec removed").isEmpty();
                assertThat(agent.agent.preparation().prepared()).isEmpty();
            } finally {
                agent.close();
            }
        }
    }

    /** A DRA-mode agent on {@code node} with two simulated T4s, restartable over the same directories. */
    private static final class Agent implements AutoCloseable {
        final KubernetesDraCluster cluster;
        final SimulatedBackend gpus;
        final DraNodeAgent agent;
        private boolean closed;

        Agent(KubernetesClient client, String node, DraConfig dra, InstantSource clock) {
            List<Gpu> cards = List.of(
                    new Gpu(0, "GPU-" + node + "-0", "Tesla T4", 15_360, "00000000:01:00.0", 0, 0, false),
                    new Gpu(1, "GPU-" + node + "-1", "Tesla T4", 15_360, "00000000:02:00.0", 1, 0, false));
            Path home = dra.pluginDir().getParent();
            AgentConfig config = DraAgents.config(node, home);
            cluster = new KubernetesDraCluster(client, node, config.units());
            gpus = SimulatedBackend.of(new Hardware("535.104.05", cards, Topology.uniform(2, Link.UNKNOWN)));
            agent = DraNodeAgent.start(config, dra, this.gpus, cluster, clock, new AgentMetrics(node));
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                agent.close();
                cluster.close();
            }
        }
    }

    /** What kubelet says of the health of CDI device {@code id} in the pod's container main. */
    private static String health(KubeletDriver kubelet, Pod pod, String id) {
        return kubelet.health(pod.getMetadata().getUid()).getOrDefault("main", List.of()).stream()
                .flatMap(r -> r.getResources().stream())
                .filter(h -> id.equals(h.getResourceID()))
                .map(h -> h.getHealth())
                .findFirst()
                .orElse("(not reported)");
    }

    private static Path driverBinary() {
        return switch (DriverBinary.locate()) {
            case DriverBinary.Found(Path path) -> path;
            case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
        };
    }

    private static void applyTheChartsDeviceClasses(KubernetesClient client) throws Exception {
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        RenderedChart.rendered(client, "all-options").stream()
                .filter(DeviceClass.class::isInstance)
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
    }

    private static ResourceSlice slice(KubernetesClient client, String node) {
        return client.resources(ResourceSlice.class)
                .withName(SlicePublisher.sliceName(node))
                .get();
    }

    /** One card of class gpu.elasticgpu.io, sharing it by {@code memory} and {@code cores} percent. */
    private static ResourceClaimSpec share(String memory, String cores) {
        return DraClaims.share(null, memory, cores).getSpec();
    }

    private static Pod claimPod(String name, String claim, String template) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName(claim)
                .withResourceClaimTemplateName(template)
                .endResourceClaim()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addNewClaim()
                .withName("gpu")
                .endClaim()
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    /** A pod written for the device plugin, unchanged: one whole card as {@code elasticgpu.io/gpu: 1}. */
    private static Pod extendedResourcePod(String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits(ResourceNames.GPU, new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    /** Waits until kube-scheduler bound pod {@code name} to {@code node}; says why not, if it did not. */
    private static void awaitBound(
            io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<Pod, ?, io.fabric8.kubernetes.client.dsl.PodResource>
                    pods,
            String name,
            String node) {
        await().atMost(WAIT).untilAsserted(() -> {
            Pod p = pods.withName(name).get();
            assertThat(p.getSpec().getNodeName())
                    .as(
                            "pod %s's node; its conditions: %s",
                            name, p.getStatus() == null ? "none" : p.getStatus().getConditions())
                    .isEqualTo(node);
        });
    }

    /**
     * The pod once the API server has in its status the names of the claims it did not name itself: a template's
     * (made by kube-controller-manager) and the one kube-scheduler makes for an extended resource.
     */
    private static Pod withClaimStatus(
            io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<Pod, ?, io.fabric8.kubernetes.client.dsl.PodResource>
                    pods,
            String name) {
        return await().atMost(WAIT).until(() -> pods.withName(name).get(), p -> {
            if (p.getSpec().getResourceClaims().isEmpty()) {
                return p.getStatus().getExtendedResourceClaimStatus() != null;
            }
            boolean fromTemplate =
                    p.getSpec().getResourceClaims().stream().anyMatch(c -> c.getResourceClaimTemplateName() != null);
            return !fromTemplate || !p.getStatus().getResourceClaimStatuses().isEmpty();
        });
    }

    private static Admission.Admitted admitted(Admission admission) {
        assertThat(admission).isInstanceOf(Admission.Admitted.class);
        return (Admission.Admitted) admission;
    }

    private static Map<String, String> devices(Path cdi, String id) {
        Map<String, String> env = cdiDevices(cdi).get(id);
        assertThat(env).as("CDI device %s in the specs in %s", id, cdi).isNotNull();
        return env;
    }

    /** Deletes the spec file in {@code dir} that defines CDI device {@code id}. */
    private static void deleteSpecOf(Path dir, String id) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json"))
                    .toList()) {
                JsonNode spec = JSON.readTree(file.toFile());
                for (JsonNode device : spec.path("devices")) {
                    if (id.equals(spec.path("kind").asText() + "="
                            + device.path("name").asText())) {
                        Files.delete(file);
                        return;
                    }
                }
            }
        }
        throw new AssertionError("no CDI spec in " + dir + " defines " + id);
    }

    /** Every CDI device the specs in {@code dir} define, by its qualified name, with its environment. */
    private static Map<String, Map<String, String>> cdiDevices(Path dir) {
        Map<String, Map<String, String>> devices = new HashMap<>();
        if (!Files.isDirectory(dir)) {
            return devices;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json"))
                    .toList()) {
                JsonNode spec = JSON.readTree(file.toFile());
                for (JsonNode device : spec.path("devices")) {
                    Map<String, String> env = new HashMap<>();
                    device.path("containerEdits").path("env").forEach(e -> {
                        String[] kv = e.asText().split("=", 2);
                        env.put(kv[0], kv[1]);
                    });
                    devices.put(
                            spec.path("kind").asText() + "="
                                    + device.path("name").asText(),
                            env);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return devices;
    }
}
