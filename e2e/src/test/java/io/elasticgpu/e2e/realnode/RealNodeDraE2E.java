package io.elasticgpu.e2e.realnode;

import static io.elasticgpu.e2e.realnode.GpuWorkloads.expectedEnvironment;
import static io.elasticgpu.e2e.realnode.GpuWorkloads.gpuVariables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.e2e.dra.DraClaims;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.RealNodeExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodeAgent;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.dra.CdiSpecs;
import io.elasticgpu.node.dra.Checkpoint;
import io.elasticgpu.node.dra.PreparedClaim;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The DRA path up to a running container: the agent in DRA mode ({@code --api dra}, simulated cards, their device
 * nodes made on the host as a driver would) publishes the node's ResourceSlice, kube-scheduler's allocator picks a
 * card for a claim, kubelet asks the agent to prepare it, and containerd 2.x injects the CDI device the agent wrote
 * (environment and device nodes) into every container that uses the claim.
 */
@ExtendWith({ControlPlaneExtension.class, RealNodeExtension.class})
class RealNodeDraE2E {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static GpuWorkloads gpus;

    @BeforeAll
    static void startElasticGpu(ControlPlane controlPlane, RealNode node) {
        try (KubernetesClient client = controlPlane.newClient()) {
            ChartConfig.deviceClasses(Binaries.E2E_DIR.toAbsolutePath().getParent())
                    .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
            node.ensureCardDeviceNodes(GpuWorkloads.CARDS);
            gpus = GpuWorkloads.start(controlPlane, node, RealNodeAgent.Api.DRA, List.of());
            await().atMost(RealNodePods.WAIT)
                    .until(
                            () -> client.resources(ResourceSlice.class)
                                    .withName(SlicePublisher.sliceName(node.name()))
                                    .get(),
                            s -> s != null && s.getSpec().getDevices().size() == GpuWorkloads.CARDS);
        }
    }

    @AfterAll
    static void stopElasticGpu() {
        if (gpus != null) {
            gpus.close();
        }
    }

    @Test
    void aClaimSharedByTwoContainersGivesBothTheCardAndShareTheAgentPrepared(TestCluster cluster, RealNode node)
            throws IOException {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        client.resources(ResourceClaim.class)
                .inNamespace(ns)
                .resource(DraClaims.share("shared", "4Gi", "30"))
                .create();
        RealNodePods pods = new RealNodePods(client, ns, node);
        var pod = pods.pod("pair")
                .editSpec()
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName("shared")
                .endResourceClaim();
        for (String container : List.of("a", "b")) {
            pod.addToContainers(pods.claimReporting(container, "gpu", null));
        }
        pods.create(pod.endSpec().build());
        ContainerReport a = pods.report("pair", "a");
        ContainerReport b = pods.report("pair", "b");

        // What the allocator chose and the claim consumed.
        ResourceClaim claim = client.resources(ResourceClaim.class)
                .inNamespace(ns)
                .withName("shared")
                .get();
        DeviceRequestAllocationResult result =
                claim.getStatus().getAllocation().getDevices().getResults().getFirst();
        assertThat(result.getDriver()).isEqualTo(DraNames.DRIVER);
        assertThat(result.getPool()).isEqualTo(node.name());
        int card = Integer.parseInt(result.getDevice().substring("gpu-".length()));
        assertThat(result.getConsumedCapacity()).containsEntry(DraNames.MEMORY, new Quantity("4Gi"));
        String uuid = NodeInventory.fromJson(client.nodes()
                        .withName(node.name())
                        .get()
                        .getMetadata()
                        .getAnnotations()
                        .get(Annotations.INVENTORY))
                .cards()
                .get(card)
                .uuid();
        // 4 GiB = 4096 MiB and 30 % = 300 milli of card `card`
        Map<String, String> expected = expectedEnvironment(List.of(new Share(card, uuid, 300, 4096)), true, true);

        // What the agent prepared: its checkpoint and the CDI device it wrote for the claim's request.
        PreparedClaim prepared = Checkpoint.open(
                        node.layout().pluginDir(RealNodeAgent.DRA_DRIVER).resolve("checkpoint.json"))
                .get(claim.getMetadata().getUid())
                .orElseThrow();
        Map<String, String> cdiEnv = cdiEnvironment(
                prepared.cdiSpec(), CdiSpecs.deviceName(claim.getMetadata().getUid(), "gpu"));
        assertThat(cdiEnv).containsAllEntriesOf(expected);

        for (ContainerReport report : List.of(a, b)) {
            assertThat(gpuVariables(report))
                    .isEqualTo(new java.util.TreeMap<>(cdiEnv))
                    .containsAllEntriesOf(expected);
            assertThat(report.devices()).as("device nodes the CDI spec names").contains("nvidia" + card, "nvidiactl");
            assertThat(report.deviceList())
                    .as("the NVIDIA toolkit's device list the CDI spec mounts")
                    .containsExactly(uuid);
        }
    }

    /**
     * The agent's state wiped while a pod runs: the agent is killed, its checkpoint deleted, and it starts again. It
     * takes the pod's claim from the API (allocated on this node, reserved for a pod running here) before kubelet can
     * ask for anything, writes it to a new checkpoint with the card the claim holds, so that no new claim is prepared
     * over it, and says so in an event on the node; the pod runs on, and kubelet's unprepare finds the claim when the
     * pod goes.
     */
    @Test
    void anAgentWhoseCheckpointWasDeletedRebuildsItFromTheApiAndSaysSo(TestCluster cluster, RealNode node)
            throws IOException {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        client.resources(ResourceClaim.class)
                .inNamespace(ns)
                .resource(DraClaims.share("kept", "2Gi", "20"))
                .create();
        RealNodePods pods = new RealNodePods(client, ns, node);
        pods.create(pods.pod("keeper")
                .editSpec()
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName("kept")
                .endResourceClaim()
                .addToContainers(pods.claimReporting("main", "gpu", null))
                .endSpec()
                .build());
        pods.report("keeper", "main");
        String uid = client.resources(ResourceClaim.class)
                .inNamespace(ns)
                .withName("kept")
                .get()
                .getMetadata()
                .getUid();
        java.nio.file.Path checkpoint =
                node.layout().pluginDir(RealNodeAgent.DRA_DRIVER).resolve("checkpoint.json");
        PreparedClaim before = Checkpoint.open(checkpoint).get(uid).orElseThrow();

        gpus.agent.kill();
        java.nio.file.Files.delete(checkpoint);
        gpus.agent.restart();

        PreparedClaim after = await().atMost(RealNodePods.WAIT)
                .until(() -> Checkpoint.open(checkpoint).get(uid), java.util.Optional::isPresent)
                .orElseThrow();
        assertThat(after.devices()).isEqualTo(before.devices());
        assertThat(after.cdiSpec()).isEqualTo(before.cdiSpec());
        String said = await().atMost(RealNodePods.WAIT)
                .until(
                        () -> client.v1().events().inNamespace("default").list().getItems().stream()
                                .filter(e -> DraNodeAgent.REBUILT.equals(e.getReason())
                                        && node.name()
                                                .equals(e.getInvolvedObject().getName()))
                                .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                                .filter(m -> m.contains(uid))
                                .findFirst()
                                .orElse(""),
                        m -> !m.isEmpty());
        int card = before.devices().getFirst().card();
        assertThat(said).contains("%s/kept (%s) on card %d".formatted(ns, uid, card));
        assertThat(pods.status("keeper", "main"))
                .hasValueSatisfying(s -> assertThat(s.getRestartCount()).isZero());

        client.pods().inNamespace(ns).withName("keeper").delete();
        await().atMost(RealNodePods.WAIT)
                .alias("kubelet's unprepare of the rebuilt claim")
                .until(() -> Checkpoint.open(checkpoint).get(uid).isEmpty());
    }

    /**
     * A claim of two requests, each a card's share: a container that uses both (here the claim whole) would get two
     * CDI devices whose {@code NVIDIA_VISIBLE_DEVICES} the runtime does not merge, so the agent refuses to prepare the
     * claim and kubelet reports why on the pod; the same two requests in two containers run, each told its own card.
     */
    @Test
    void aContainerUsingTwoRequestsOfAClaimIsRefusedAndTwoContainersWithOneEachRun(TestCluster cluster, RealNode node) {
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        RealNodePods pods = new RealNodePods(client, ns, node);
        for (String name : List.of("together", "apart")) {
            client.resources(ResourceClaim.class)
                    .inNamespace(ns)
                    .resource(twoRequests(name))
                    .create();
        }
        var together = pods.pod("together")
                .editSpec()
                .addNewResourceClaim()
                .withName("gpus")
                .withResourceClaimName("together")
                .endResourceClaim()
                .addToContainers(pods.claimReporting("main", "gpus", null))
                .endSpec()
                .build();
        pods.create(together);
        var apart = pods.pod("apart")
                .editSpec()
                .addNewResourceClaim()
                .withName("gpus")
                .withResourceClaimName("apart")
                .endResourceClaim();
        for (String request : List.of("gpu-a", "gpu-b")) {
            apart.addToContainers(pods.claimReporting(request, "gpus", request));
        }
        pods.create(apart.endSpec().build());

        String why = await().atMost(RealNodePods.WAIT)
                .until(
                        () -> client.v1().events().inNamespace(ns).list().getItems().stream()
                                .filter(e ->
                                        "together".equals(e.getInvolvedObject().getName()))
                                .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                                .filter(m -> m != null && m.contains("uses its requests"))
                                .findFirst()
                                .orElse(""),
                        m -> !m.isEmpty());
        assertThat(why)
                .contains("container main of pod together uses its requests gpu-a and gpu-b")
                .contains("give each request to its own container");
        assertThat(pods.status("together", "main").map(s -> s.getState().getRunning()))
                .as("the container that would be told one card and handed two")
                .isEmpty();

        ResourceClaim claim = client.resources(ResourceClaim.class)
                .inNamespace(ns)
                .withName("apart")
                .get();
        for (String request : List.of("gpu-a", "gpu-b")) {
            DeviceRequestAllocationResult result = claim.getStatus().getAllocation().getDevices().getResults().stream()
                    .filter(r -> r.getRequest().equals(request))
                    .findFirst()
                    .orElseThrow();
            int card = Integer.parseInt(result.getDevice().substring("gpu-".length()));
            assertThat(gpuVariables(pods.report("apart", request)))
                    .as("container %s, which uses request %s only", request, request)
                    .containsEntry("ELASTICGPU_CARD_INDEX", Integer.toString(card))
                    .containsEntry("ELASTICGPU_MEMORY_LIMIT_MIB", "1024");
        }
    }

    private static ResourceClaim twoRequests(String name) {
        var devices = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewDevices();
        for (String request : List.of("gpu-a", "gpu-b")) {
            devices.addNewRequest()
                    .withName(request)
                    .withNewExactly()
                    .withDeviceClassName(DraNames.DRIVER)
                    .withNewCapacity()
                    .addToRequests(DraNames.MEMORY, new Quantity("1Gi"))
                    .addToRequests(DraNames.CORES, new Quantity("10"))
                    .endCapacity()
                    .endExactly()
                    .endRequest();
        }
        return devices.endDevices().endSpec().build();
    }

    /** The environment of CDI device {@code name} in {@code spec}, its spec-wide edits first. */
    private static Map<String, String> cdiEnvironment(String spec, String name) throws IOException {
        JsonNode root = JSON.readTree(spec);
        Map<String, String> env = new LinkedHashMap<>();
        List<JsonNode> edits = new java.util.ArrayList<>(List.of(root.path("containerEdits")));
        root.path("devices").forEach(d -> {
            if (d.path("name").asText().equals(name)) {
                edits.add(d.path("containerEdits"));
            }
        });
        assertThat(edits).as("CDI device %s in the agent's spec", name).hasSize(2);
        edits.forEach(e -> e.path("env").forEach(v -> {
            String kv = v.asText();
            env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }));
        return env;
    }
}
