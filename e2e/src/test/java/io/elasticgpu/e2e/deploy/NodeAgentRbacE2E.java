package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.dra.DraClaims;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.agent.PodEviction;
import io.elasticgpu.node.deviceplugin.UnixSockets;
import io.elasticgpu.node.draplugin.api.Claim;
import io.elasticgpu.node.draplugin.api.DRAPluginGrpc;
import io.elasticgpu.node.draplugin.api.NodePrepareResourcesRequest;
import io.elasticgpu.node.draplugin.api.NodeUnprepareResourcesRequest;
import io.elasticgpu.node.isolation.MpsStandIn;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's RBAC is what it uses, no more, in each of its two APIs: the chart's RBAC is applied to
 * the real apiserver, {@code egpu node-agent} runs as a process with a token of the chart's ServiceAccount against
 * kubelet's own device manager (device-plugin mode) or as a DRA driver whose claims the real kube-scheduler allocates,
 * through a life that touches every path: start, admissions, an Xid, SIGKILL and restart, a hand edit of what it
 * publishes, and, with isolation by MPS (the node module's stand-in {@code nvidia-cuda-mps-control}, no GPU needed), a
 * share's daemon that dies and is started again, which the agent tells as a Warning event about the pod or claim
 * holding the share (events create). With {@code isolation: mps} (the DRA life's rendering) the agent may evict a pod
 * of its node that went around MPS twice (pods/eviction create): its own eviction code, with its token, is refused
 * while a PodDisruptionBudget forbids it and then evicts the pod. The apiserver's audit log then says what it called:
 * every verb granted was used, none refused.
 */
@ExtendWith(ControlPlaneExtension.class)
class NodeAgentRbacE2E {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String BINDING = "elastic-gpu-elastic-gpu-node-agent";
    private static final String EVICTION = "/pods/eviction create";
    private static final String CARDS = """
            driverVersion: "570.86.15"
            cards:
              - {model: Tesla T4, memoryMiB: 15360, count: 2}
            """;

    /** The node module's stand-in for NVIDIA's nvidia-cuda-mps-control (same command line, pid file and commands). */
    private static final Path MPS_STAND_IN = RenderedChart.DEPLOY
            .toAbsolutePath()
            .getParent()
            .resolve("node/src/test/resources/mps/nvidia-cuda-mps-control");

    @TempDir
    Path dir;

    @Test
    void devicePluginMode(TestCluster cluster) throws Exception {
        Instant since = Instant.now(); // both tests run as the one ServiceAccount: each counts its own calls
        ChartRbac.Installed rbac = ChartRbac.install(cluster, "defaults", "node-agent", BINDING);
        assertThat(rbac.grants())
                .as("without isolation: mps nothing is evicted")
                .doesNotContain(EVICTION);
        KubernetesClient client = cluster.client();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("rbac-dp", 2, "Tesla-T4", 15_360)))
                .getFirst();
        Path yaml = Files.writeString(dir.resolve("node.yaml"), CARDS);
        Path mps = dir.resolve("mps");
        try (KubeletDriver kubelet = KubeletDriver.start(driver())) {
            List<String> args = new ArrayList<>(List.of(
                    "--kubeconfig",
                    rbac.kubeconfig().toString(),
                    "--node-name",
                    node,
                    "--backend",
                    "simulated",
                    "--simulated-gpus",
                    yaml.toString(),
                    "--device-plugin-dir",
                    kubelet.pluginDir().toString(),
                    "--pod-resources-socket",
                    kubelet.podResourcesSocket().toString(),
                    "--memory-block-mib",
                    "64"));
            args.addAll(isolation(mps));
            ManagedProcess agent = start(cluster, args, "dp-1");
            kubelet.await(ResourceNames.GPU_MEMORY, 2 * 15_360 / 64, WAIT);
            String uuid = await().atMost(WAIT).until(() -> cardUuid(client, node, 1), u -> u != null);

            var pods = client.pods().inNamespace(cluster.namespace());
            Pod first = pods.resource(slicePod("first", node, new Share(1, uuid, 0, 4096)))
                    .create();
            assertThat(kubelet.admit(first)).isInstanceOf(Admission.Admitted.class);
            await().atMost(WAIT)
                    .until(() -> Annotations.PHASE_ALLOCATED.equals(pods.withName("first")
                            .get()
                            .getMetadata()
                            .getAnnotations()
                            .get(Annotations.PHASE)));
            // The share's MPS daemon dies: the agent starts it again and tells the pod's events.
            killDaemons(mps);
            awaitWarning(client, cluster.namespace(), "Pod", "first");

            Files.writeString(events(yaml), "xid 0 79\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            await().atMost(WAIT)
                    .until(() -> !inventory(client, node).cards().getFirst().healthy());

            // A crash mid-life: the restarted agent rebuilds what it handed out from kubelet and the API.
            agent.kill();
            kubelet.restart();
            agent = start(cluster, args, "dp-2");
            kubelet.await(ResourceNames.GPU_MEMORY, 2 * 15_360 / 64, WAIT);
            Pod second = pods.resource(slicePod("second", node, new Share(1, uuid, 0, 4096)))
                    .create();
            assertThat(kubelet.admit(second)).isInstanceOf(Admission.Admitted.class);
            await().atMost(WAIT)
                    .until(() -> Annotations.PHASE_ALLOCATED.equals(pods.withName("second")
                            .get()
                            .getMetadata()
                            .getAnnotations()
                            .get(Annotations.PHASE)));
            agent.stop(Duration.ofSeconds(10));
        } finally {
            killDaemons(mps); // they outlive the agent by design
        }
        ChartRbac.assertLeastPrivilege(
                "node agent (device plugin)",
                rbac.grants(),
                ChartRbac.calls(cluster.controlPlane(), rbac.account(), since));
    }

    @Test
    void draMode(TestCluster cluster) throws Exception {
        Instant since = Instant.now(); // both tests run as the one ServiceAccount: each counts its own calls
        ChartRbac.Installed rbac = ChartRbac.install(cluster, "all-options", "node-agent", BINDING);
        KubernetesClient client = cluster.client();
        List<HasMetadata> chart = RenderedChart.rendered(client, "all-options");
        chart.stream()
                .filter(DeviceClass.class::isInstance)
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("rbac-dra", 2, "Tesla-T4", 15_360)))
                .getFirst();
        Path yaml = Files.writeString(dir.resolve("node.yaml"), CARDS);
        Path plugin = dir.resolve("plugin");
        Path mps = dir.resolve("mps");
        List<String> args = new ArrayList<>(List.of(
                "--kubeconfig",
                rbac.kubeconfig().toString(),
                "--node-name",
                node,
                "--backend",
                "simulated",
                "--simulated-gpus",
                yaml.toString(),
                "--api",
                "dra",
                "--dra-plugin-dir",
                plugin.toString(),
                "--plugin-registration-dir",
                dir.resolve("registry").toString(),
                "--cdi-dir",
                dir.resolve("cdi").toString()));
        args.addAll(isolation(mps));
        try {
            draLife(cluster, args, node, yaml, plugin, mps);
        } finally {
            killDaemons(mps); // they outlive the agent by design
        }
        assertThat(rbac.grants()).as("isolation: mps").contains(EVICTION);
        evictsAPodOfItsNode(cluster, rbac.kubeconfig(), node);
        ChartRbac.assertLeastPrivilege(
                "node agent (DRA)", rbac.grants(), ChartRbac.calls(cluster.controlPlane(), rbac.account(), since));
    }

    /** The DRA agent's life, from start to a restart after a crash. */
    private void draLife(TestCluster cluster, List<String> args, String node, Path yaml, Path plugin, Path mps)
            throws Exception {
        KubernetesClient client = cluster.client();
        ManagedProcess agent = start(cluster, args, "dra-1");
        var slices = client.resources(ResourceSlice.class).withName(SlicePublisher.sliceName(node));
        await().atMost(WAIT).until(() -> slices.get() != null);

        var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
        claims.resource(claim("shared")).create();
        client.pods()
                .inNamespace(cluster.namespace())
                .resource(claimPod("user", "shared", node))
                .create();
        ResourceClaim allocated = await().atMost(WAIT)
                .until(
                        () -> claims.withName("shared").get(),
                        c -> c.getStatus() != null && c.getStatus().getAllocation() != null);
        // kubelet calls the driver once its registration socket appears, which the agent makes after it serves
        // dra.sock.
        await().atMost(WAIT).until(() -> Files.exists(dir.resolve("registry").resolve(DraNames.DRIVER + "-reg.sock")));
        Claim ref = Claim.newBuilder()
                .setNamespace(cluster.namespace())
                .setName("shared")
                .setUid(allocated.getMetadata().getUid())
                .build();
        var channel = UnixSockets.connect(plugin.resolve("dra.sock"));
        try {
            var kubelet = DRAPluginGrpc.newBlockingStub(channel);
            var prepared = kubelet.nodePrepareResources(
                    NodePrepareResourcesRequest.newBuilder().addClaims(ref).build());
            assertThat(prepared.getClaimsMap().get(ref.getUid()).getError()).isEmpty();
            // The claim's MPS daemon dies: the agent starts it again and tells the claim's events.
            killDaemons(mps);
            awaitWarning(client, cluster.namespace(), "ResourceClaim", "shared");
            kubelet.nodeUnprepareResources(
                    NodeUnprepareResourcesRequest.newBuilder().addClaims(ref).build());
        } finally {
            channel.shutdownNow();
        }

        // A hand edit is written back; an Xid taints the card; a crash and restart publishes again.
        slices.edit(s -> {
            s.getSpec()
                    .getDevices()
                    .getFirst()
                    .getCapacity()
                    .get(DraNames.MEMORY)
                    .setValue(new Quantity("30Gi"));
            return s;
        });
        await().atMost(WAIT)
                .until(() -> Quantity.getAmountInBytes(slices.get()
                                        .getSpec()
                                        .getDevices()
                                        .getFirst()
                                        .getCapacity()
                                        .get(DraNames.MEMORY)
                                        .getValue())
                                .longValue()
                        == 15L << 30);
        Files.writeString(events(yaml), "xid 0 79\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        await().atMost(WAIT)
                .until(() -> slices.get().getSpec().getDevices().getFirst().getTaints() != null
                        && !slices.get()
                                .getSpec()
                                .getDevices()
                                .getFirst()
                                .getTaints()
                                .isEmpty());
        agent.kill();
        agent = start(cluster, args, "dra-2");
        await().atMost(WAIT).until(() -> slices.get() != null);
        agent.stop(Duration.ofSeconds(10));
    }

    /**
     * What the agent does to a pod caught twice going around MPS, with its own code ({@link
     * KubernetesDraCluster#evict}) and token: refused (HTTP 429) while a PodDisruptionBudget allows no disruption, done
     * once the budget is gone.
     */
    private static void evictsAPodOfItsNode(TestCluster cluster, Path kubeconfig, String node) throws Exception {
        KubernetesClient client = cluster.client();
        String namespace = cluster.namespace();
        Pod pod = client.pods()
                .inNamespace(namespace)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("bypasser")
                        .addToLabels("app", "bypasser")
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.example/train:1")
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        var budget = client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(namespace)
                .resource(new PodDisruptionBudgetBuilder()
                        .withNewMetadata()
                        .withName("bypasser")
                        .endMetadata()
                        .withNewSpec()
                        .withMinAvailable(new IntOrString(1))
                        .withNewSelector()
                        .addToMatchLabels("app", "bypasser")
                        .endSelector()
                        .endSpec()
                        .build());
        budget.create();
        String uid = pod.getMetadata().getUid();
        try (KubernetesClient agentClient = new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                        .build();
                KubernetesDraCluster agent = new KubernetesDraCluster(agentClient, node, PodAsks.Units.DEFAULT)) {
            assertThat(agent.evict(namespace, "bypasser", uid))
                    .as("evicted while a PodDisruptionBudget allows no disruption")
                    .isInstanceOfSatisfying(
                            PodEviction.Refused.class, r -> assertThat(r.why()).startsWith("HTTP 429"));
            budget.delete();
            await().atMost(WAIT)
                    .until(() -> agent.evict(namespace, "bypasser", uid), PodEviction.Evicted.class::isInstance);
        }
        await().atMost(WAIT).until(() -> {
            Pod now = client.pods().inNamespace(namespace).withName("bypasser").get();
            return now == null || now.getMetadata().getDeletionTimestamp() != null;
        });
    }

    /** Isolation by MPS with the stand-in control program, its shares under {@code root}. */
    private List<String> isolation(Path root) throws Exception {
        Path program = Files.createDirectories(dir.resolve("mps-bin")).resolve("nvidia-cuda-mps-control");
        Files.copy(MPS_STAND_IN, program, StandardCopyOption.REPLACE_EXISTING);
        assertThat(program.toFile().setExecutable(true)).isTrue();
        return List.of("--isolation", "mps", "--mps-control", program.toString(), "--mps-root", root.toString());
    }

    /** Ends every share's control daemon under {@code root} and unmounts each share's /dev/shm tmpfs. */
    private static void killDaemons(Path root) {
        MpsStandIn.killAll(root);
    }

    /** Waits for the agent's Warning event that the share of {@code kind name} had its MPS daemon started again. */
    private static void awaitWarning(KubernetesClient client, String namespace, String kind, String name) {
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(client.v1()
                                .events()
                                .inNamespace(namespace)
                                .list()
                                .getItems())
                        .anySatisfy(e -> {
                            assertThat(e.getType()).isEqualTo("Warning");
                            assertThat(e.getReason()).isEqualTo("GpuShareDaemonRestarted");
                            assertThat(e.getInvolvedObject().getKind()).isEqualTo(kind);
                            assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
                            assertThat(e.getSource().getComponent()).isEqualTo("elastic-gpu-node-agent");
                        }));
    }

    /** {@code egpu node-agent ARGS} as a process, ready once it answers /healthz. */
    private static ManagedProcess start(TestCluster cluster, List<String> args, String name) {
        int port = Ports.free();
        List<String> line = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-jar",
                EgpuProcess.jar().toString(),
                "node-agent"));
        line.addAll(args);
        line.addAll(List.of("--metrics-listen", "127.0.0.1:" + port));
        ManagedProcess p = ManagedProcess.start(
                "node-agent-" + name,
                line,
                cluster.controlPlane().workDir().resolve("logs").resolve("node-agent-rbac-" + name + ".log"));
        p.awaitAnswering(URI.create("http://127.0.0.1:" + port + "/healthz"), WAIT);
        return p;
    }

    private static Path driver() {
        return switch (DriverBinary.locate()) {
            case DriverBinary.Found(Path path) -> path;
            case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
        };
    }

    private static Path events(Path yaml) {
        return yaml.resolveSibling(yaml.getFileName() + ".events");
    }

    private static NodeInventory inventory(KubernetesClient client, String node) {
        return NodeInventory.fromJson(client.nodes()
                .withName(node)
                .get()
                .getMetadata()
                .getAnnotations()
                .get(Annotations.INVENTORY));
    }

    /** The uuid of card {@code index} once the agent (not kwok's start-up inventory) has published it. */
    private static String cardUuid(KubernetesClient client, String node, int index) {
        String driver =
                client.nodes().withName(node).get().getMetadata().getLabels().get(NodeLabels.DRIVER);
        return "570.86.15".equals(driver)
                ? inventory(client, node).cards().get(index).uuid()
                : null;
    }

    private static Pod slicePod(String name, String node, Share planned) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(node, Map.of("main", List.of(planned))).toJson())
                .addToAnnotations(Annotations.ASSUME_TIME, Long.toString(System.nanoTime()))
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ASSUMED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits(ResourceNames.GPU_MEMORY, new Quantity("64"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    private static ResourceClaim claim(String name) {
        return DraClaims.share(name, "4Gi", "25");
    }

    private static Pod claimPod(String name, String claim, String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeSelector(Map.of("kubernetes.io/hostname", node))
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName(claim)
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
}
