package io.elasticgpu.e2e.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.controller.view.CardView;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.Scope;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.deploy.RenderedChart;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.dra.ClaimRef;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A simulated-mode agent in DRA mode on a kwok node publishes its ResourceSlice, and the real kube-scheduler (1.36,
 * consumable capacity and device taints on by default) allocates claims against it: two claims share one card by
 * memory and cores, a claim no card can hold stays unallocated with the allocator's reason, an unhealthy card is
 * tainted and gets no new claim until it recovers. An ask off the block grid is rounded up; a selector on an
 * attribute we do not publish leaves its claim unallocated with the reason. The agent prepares an allocated claim
 * from the API, and writes its slice back after a hand edit or deletion.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraSliceE2E {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String CLASS = "gpu.elasticgpu.io";

    @TempDir
    Path dir;

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-21T10:00:00Z"));

    private static Hardware twoT4s() {
        List<Gpu> gpus = List.of(
                new Gpu(
                        0,
                        "GPU-dra00000-0000-0000-0000-000000000000",
                        "Tesla T4",
                        15_360,
                        "00000000:01:00.0",
                        0,
                        0,
                        false),
                new Gpu(
                        1,
                        "GPU-dra00001-0000-0000-0000-000000000000",
                        "Tesla T4",
                        15_360,
                        "00000000:02:00.0",
                        1,
                        0,
                        false));
        return new Hardware("535.104.05", gpus, Topology.uniform(2, Link.UNKNOWN));
    }

    /** A claim for one card of ours with {@code memory} and {@code cores}, optionally only card {@code index}. */
    private static ResourceClaim claim(String name, String memory, String cores, Integer index) {
        var request = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(CLASS)
                .withNewCapacity()
                .addToRequests(DraNames.MEMORY, new Quantity(memory))
                .addToRequests(DraNames.CORES, new Quantity(cores))
                .endCapacity();
        if (index != null) {
            request = request.addNewSelector()
                    .withNewCel()
                    .withExpression("device.attributes[\"gpu.elasticgpu.io\"].index == " + index)
                    .endCel()
                    .endSelector();
        }
        return request.endExactly().endRequest().endDevices().endSpec().build();
    }

    private static Pod pod(String name, String claim) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
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

    /** The chart's DeviceClasses for DRA nodes, as it installs them. */
    private static void deviceClass(io.fabric8.kubernetes.client.KubernetesClient client) {
        ChartConfig.deviceClasses(Binaries.E2E_DIR.toAbsolutePath().getParent())
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
    }

    @Test
    void theRealSchedulerSharesOneCardBetweenClaimsAndNeverOverCommitsIt(TestCluster cluster) throws Exception {
        var client = cluster.client();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("dra", 2, "Tesla-T4", 15_360)))
                .getFirst();
        deviceClass(client);
        SimulatedBackend gpus = SimulatedBackend.of(twoT4s());
        try (KubernetesDraCluster draCluster =
                        new KubernetesDraCluster(client, node, agentConfig(node).units());
                DraNodeAgent agent = DraNodeAgent.start(
                        agentConfig(node), draConfig(), gpus, draCluster, now::get, new AgentMetrics(node))) {
            ResourceSlice slice = await().atMost(WAIT)
                    .until(
                            () -> client.resources(ResourceSlice.class)
                                    .withName(SlicePublisher.sliceName(node))
                                    .get(),
                            s -> s != null);
            assertThat(slice.getSpec().getDriver()).isEqualTo(DraNames.DRIVER);
            assertThat(slice.getSpec().getPool().getName()).isEqualTo(node);
            assertThat(slice.getSpec().getDevices())
                    .extracting(d -> d.getName())
                    .containsExactly("gpu-0", "gpu-1");
            assertThat(client.nodes().withName(node).get().getMetadata().getLabels())
                    .containsEntry(NodeLabels.API, NodeLabels.API_DRA);

            // The slice is what the allocator believes: a hand edit (card 0 with twice its memory) and a deletion are
            // both written back by the agent.
            var slices = client.resources(ResourceSlice.class).withName(SlicePublisher.sliceName(node));
            slices.edit(sl -> {
                sl.getSpec()
                        .getDevices()
                        .getFirst()
                        .getCapacity()
                        .get(DraNames.MEMORY)
                        .setValue(new Quantity("30Gi"));
                return sl;
            });
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(Quantity.getAmountInBytes(device(client, node, 0)
                                    .getCapacity()
                                    .get(DraNames.MEMORY)
                                    .getValue()))
                            .isEqualByComparingTo(Quantity.getAmountInBytes(new Quantity("15Gi"))));
            String uid = slices.get().getMetadata().getUid();
            slices.delete();
            await().atMost(WAIT)
                    .until(() -> slices.get() != null
                            && !slices.get().getMetadata().getUid().equals(uid));
            slice = slices.get();

            var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
            var pods = client.pods().inNamespace(cluster.namespace());
            // card 0: 15360 MiB; 8 GiB + 6 GiB = 14336 MiB fits, 40 % + 50 % = 90 % fits
            claims.resource(claim("a", "8Gi", "40", 0)).create();
            claims.resource(claim("b", "6Gi", "50", 0)).create();
            claims.resource(claim("too-big", "16Gi", "10", null)).create(); // more memory than any card has
            pods.resource(pod("a", "a")).create();
            pods.resource(pod("too-big", "too-big")).create();
            // b once a holds its share: b's first attempt then sees a's allocation, not one still in flight (which,
            // with the slice just re-created, once left b parked as unschedulable for minutes under CI load).
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(result(claims.withName("a").get()).getDevice())
                                    .isEqualTo("gpu-0"));
            pods.resource(pod("b", "b")).create();

            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(result(claims.withName("a").get())).satisfies(r -> {
                    assertThat(r.getDevice()).isEqualTo("gpu-0");
                    assertThat(r.getShareID()).isNotBlank();
                    assertThat(r.getConsumedCapacity())
                            .containsEntry(DraNames.MEMORY, new Quantity("8Gi"))
                            .containsEntry(DraNames.CORES, new Quantity("40"));
                });
                assertThat(result(claims.withName("b").get()).getDevice()).isEqualTo("gpu-0");
                assertThat(pods.withName("a").get().getSpec().getNodeName()).isEqualTo(node);
                assertThat(pods.withName("b").get().getSpec().getNodeName()).isEqualTo(node);
            });
            // Until kube-scheduler has tried the pod, its status has no conditions yet: "not yet", not a failure.
            await().atMost(WAIT).ignoreException(NullPointerException.class).untilAsserted(() -> {
                assertThat(claims.withName("too-big").get().getStatus() == null
                                || claims.withName("too-big").get().getStatus().getAllocation() == null)
                        .isTrue();
                var scheduled = pods.withName("too-big").get().getStatus().getConditions().stream()
                        .filter(c -> "PodScheduled".equals(c.getType()))
                        .findFirst()
                        .orElseThrow();
                assertThat(scheduled.getStatus()).isEqualTo("False");
                assertThat(scheduled.getMessage()).contains("cannot allocate all claims");
            });
            auditCapacity(claims.list().getItems(), slice);

            // egpu inspect's view, from the API as it lists it: card 0's two claims, with their pods, counted.
            ClusterView view = ClusterView.of(
                    client.nodes().list().getItems(),
                    client.pods().inAnyNamespace().list().getItems(),
                    client.resources(ResourceClaim.class)
                            .inAnyNamespace()
                            .list()
                            .getItems(),
                    new Scope(node, null));
            CardView card0 = view.nodes().getFirst().cards().getFirst();
            assertThat(card0.memoryGrantedMib()).isEqualTo(8192 + 6144);
            assertThat(card0.computeGrantedPercent()).isEqualTo(90);
            assertThat(card0.holders())
                    .extracting(h -> h.podName() + " " + h.container())
                    .containsExactlyInAnyOrder(cluster.namespace() + "/a claim/a", cluster.namespace() + "/b claim/b");
            assertThat(view.problems()).isEmpty();
            elasticGpusForClaims(cluster, node);

            // Bad asks: 1000 MiB is not a multiple of the 256 MiB block and is rounded up to 1024 MiB, which is exactly
            // what card 0 has left; a selector on an attribute our cards do not have leaves its claim unallocated
            // with the allocator's CEL error naming it.
            claims.resource(claim("odd", "1000Mi", "5", 0)).create();
            pods.resource(pod("odd", "odd")).create();
            ResourceClaim unknown = claim("unknown", "1Gi", "5", null);
            unknown.getSpec()
                    .getDevices()
                    .getRequests()
                    .getFirst()
                    .getExactly()
                    .setSelectors(List.of(new io.fabric8.kubernetes.api.model.resource.v1.DeviceSelectorBuilder()
                            .withNewCel()
                            .withExpression("device.attributes[\"gpu.elasticgpu.io\"].color == \"red\"")
                            .endCel()
                            .build()));
            claims.resource(unknown).create();
            pods.resource(pod("unknown", "unknown")).create();
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(Quantity.getAmountInBytes(
                                    result(claims.withName("odd").get())
                                            .getConsumedCapacity()
                                            .get(DraNames.MEMORY)))
                            .isEqualByComparingTo(new BigDecimal(1024L << 20)));
            await().atMost(WAIT).ignoreException(NullPointerException.class).untilAsserted(() -> {
                assertThat(claims.withName("unknown").get().getStatus() == null
                                || claims.withName("unknown").get().getStatus().getAllocation() == null)
                        .isTrue();
                var scheduled = pods.withName("unknown").get().getStatus().getConditions().stream()
                        .filter(c -> "PodScheduled".equals(c.getType()))
                        .findFirst()
                        .orElseThrow();
                assertThat(scheduled.getStatus()).isEqualTo("False");
                assertThat(scheduled.getMessage()).contains("color");
            });
            auditCapacity(claims.list().getItems(), slice);

            // The agent prepares what the scheduler allocated: kubelet would now inject this CDI device.
            ResourceClaim a = claims.withName("a").get();
            var prepared = agent.preparation()
                    .prepare(new ClaimRef(
                            cluster.namespace(), "a", a.getMetadata().getUid()));
            assertThat(prepared)
                    .singleElement()
                    .satisfies(d -> assertThat(d.memoryMib()).isEqualTo(8192));
            assertThat(Files.readString(dir.resolve(
                            "cdi/elasticgpu.io-gpu_" + a.getMetadata().getUid() + ".json")))
                    .contains(
                            "ELASTICGPU_MEMORY_LIMIT_MIB=8192",
                            "ELASTICGPU_CORE_PERCENT=40",
                            "CUDA_DEVICE_SM_LIMIT=40",
                            "/dev/nvidia0");

            // card 1 falls off the bus: tainted NoExecute, no new claim lands on it (card 0 has 1024 MiB left)
            gpus.inject(new GpuEvent.Xid(1, 79));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(device(client, node, 1).getTaints())
                            .singleElement()
                            .satisfies(t -> assertThat(t.getEffect()).isEqualTo("NoExecute")));
            // Written once: the taint's timeAdded, filled in by the API server, is not a change to write back.
            long generation = slices.get().getSpec().getPool().getGeneration();
            Thread.sleep(2000);
            assertThat(slices.get().getSpec().getPool().getGeneration())
                    .as("the slice's generation 2 s after the taint")
                    .isEqualTo(generation);
            claims.resource(claim("after", "4Gi", "10", null)).create();
            pods.resource(pod("after", "after")).create();
            await().during(Duration.ofSeconds(5))
                    .atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    claims.withName("after").get().getStatus().getAllocation())
                            .isNull());

            now.set(now.get().plus(Duration.ofMinutes(5))); // quiet long enough: the card comes back, untainted
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(device(client, node, 1).getTaints()).isNullOrEmpty());
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    result(claims.withName("after").get()).getDevice())
                            .isEqualTo("gpu-1"));
            auditCapacity(
                    claims.list().getItems(),
                    client.resources(ResourceSlice.class)
                            .withName(SlicePublisher.sliceName(node))
                            .get());
        }
    }

    /**
     * KEP-5004 with the chart's DeviceClasses (rendered with {@code nodeAgent.api: dra}): on a node whose cards are
     * offered through DRA only (no elasticgpu.io extended resource in its status, as when no device plugin runs), a
     * pod written for the device plugin, asking {@code elasticgpu.io/gpu: 1}, is scheduled unchanged: kube-scheduler
     * makes a claim for one whole card of class gpu.elasticgpu.io. A second one takes the other card; a third stays
     * Pending.
     */
    @Test
    void aPodAskingTheExtendedResourceIsServedByDraWithTheChartsDeviceClass(TestCluster cluster) throws Exception {
        var client = cluster.client();
        assertThat(RenderedChart.script("check-chart")).contains("chart OK");
        List<DeviceClass> classes = RenderedChart.rendered(client, "all-options").stream()
                .filter(DeviceClass.class::isInstance)
                .map(DeviceClass.class::cast)
                .toList();
        assertThat(classes)
                .extracting(c -> c.getMetadata().getName())
                .contains(CLASS, "a100-80gb.gpu.elasticgpu.io", "h100.gpu.elasticgpu.io");
        classes.forEach(c -> client.resource(c).forceConflicts().serverSideApply());
        assertThat(client.resources(DeviceClass.class)
                        .withName(CLASS)
                        .get()
                        .getSpec()
                        .getExtendedResourceName())
                .as("the apiserver keeps the mapping (DRAExtendedResource on)")
                .isEqualTo(ResourceNames.GPU);

        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("ext", 2, "Tesla-T4", 15_360)))
                .getFirst();
        withoutExtendedResources(client, node);
        SimulatedBackend gpus = SimulatedBackend.of(twoT4s());
        try (KubernetesDraCluster draCluster =
                        new KubernetesDraCluster(client, node, agentConfig(node).units());
                DraNodeAgent agent = DraNodeAgent.start(
                        agentConfig(node), draConfig(), gpus, draCluster, now::get, new AgentMetrics(node))) {
            await().atMost(WAIT)
                    .until(() -> client.resources(ResourceSlice.class)
                                    .withName(SlicePublisher.sliceName(node))
                                    .get()
                            != null);
            var pods = client.pods().inNamespace(cluster.namespace());
            for (String name : List.of("whole-1", "whole-2", "whole-3")) {
                pods.resource(new PodBuilder()
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
                                .build())
                        .create();
            }
            var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(pods.withName("whole-1").get().getSpec().getNodeName())
                        .isEqualTo(node);
                assertThat(pods.withName("whole-2").get().getSpec().getNodeName())
                        .isEqualTo(node);
                assertThat(claims.list().getItems()).hasSize(2).allSatisfy(c -> {
                    DeviceRequestAllocationResult r = result(c);
                    assertThat(r.getDriver()).isEqualTo(DraNames.DRIVER);
                    assertThat(r.getConsumedCapacity()).containsEntry(DraNames.MEMORY, new Quantity("15Gi"));
                });
            });
            assertThat(claims.list().getItems())
                    .extracting(c -> result(c).getDevice())
                    .containsExactlyInAnyOrder("gpu-0", "gpu-1");
            await().during(Duration.ofSeconds(5))
                    .atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    pods.withName("whole-3").get().getSpec().getNodeName())
                            .isNull());
        }
    }

    /**
     * A node switched from the device plugin to DRA while a pod of the device plugin path still runs on card 0: the
     * agent taints card 0 in the slice, so the allocator puts a whole-card claim on card 1 and leaves a second one
     * unallocated, until the pod is gone and card 0 is offered again. A card is offered through one API at a time.
     */
    @Test
    void aCardThatADevicePluginPodStillHoldsIsNotOfferedToClaimsUntilThePodEnds(TestCluster cluster) throws Exception {
        var client = cluster.client();
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("switch", 2, "Tesla-T4", 15_360)))
                .getFirst();
        deviceClass(client);
        var pods = client.pods().inNamespace(cluster.namespace());
        var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
        PodGrant card0 = new PodGrant(
                node,
                Map.of(
                        "main",
                        List.of(new PodGrant.Share(0, "GPU-dra00000-0000-0000-0000-000000000000", 1000, 15_360))));
        pods.resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("old")
                        .addToAnnotations(Annotations.ALLOCATION, card0.toJson())
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.example/train:1")
                        .withNewResources()
                        .addToLimits(ResourceNames.GPU, new Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build())
                .create();
        withoutExtendedResources(client, node);
        SimulatedBackend gpus = SimulatedBackend.of(twoT4s());
        try (KubernetesDraCluster draCluster =
                        new KubernetesDraCluster(client, node, agentConfig(node).units());
                DraNodeAgent agent = DraNodeAgent.start(
                        agentConfig(node), draConfig(), gpus, draCluster, now::get, new AgentMetrics(node))) {
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(device(client, node, 0).getTaints()).singleElement().satisfies(t -> {
                    assertThat(t.getKey()).isEqualTo(DraNames.TAINT_DEVICE_PLUGIN);
                    assertThat(t.getEffect()).isEqualTo("NoSchedule");
                });
                assertThat(device(client, node, 1).getTaints()).isNullOrEmpty();
            });
            claims.resource(claim("w1", "15Gi", "100", null)).create();
            pods.resource(pod("w1", "w1")).create();
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(result(claims.withName("w1").get()).getDevice())
                                    .isEqualTo("gpu-1"));
            claims.resource(claim("w2", "15Gi", "100", null)).create();
            pods.resource(pod("w2", "w2")).create();
            await().during(Duration.ofSeconds(5))
                    .atMost(WAIT)
                    .untilAsserted(() -> assertThat(claims.withName("w2").get().getStatus() == null
                                    || claims.withName("w2").get().getStatus().getAllocation() == null)
                            .as("w2 unallocated while card 0 is held through the device plugin")
                            .isTrue());

            pods.withName("old").withGracePeriod(0).delete();
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(device(client, node, 0).getTaints()).isNullOrEmpty());
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(result(claims.withName("w2").get()).getDevice())
                                    .isEqualTo("gpu-0"));
        }
    }

    /** What kubelet shows when no device plugin serves the node: none of our extended resources. */
    static void withoutExtendedResources(io.fabric8.kubernetes.client.KubernetesClient client, String node) {
        // kwok writes the node's status meanwhile (heartbeats): a write that lost the race (409) is made again.
        await().atMost(WAIT)
                .ignoreExceptionsMatching(e ->
                        e instanceof io.fabric8.kubernetes.client.KubernetesClientException k && k.getCode() == 409)
                .until(() -> {
                    client.nodes().withName(node).editStatus(n -> {
                        n.getStatus().getCapacity().keySet().removeIf(k -> k.contains("/"));
                        n.getStatus().getAllocatable().keySet().removeIf(k -> k.contains("/"));
                        return n;
                    });
                    return true;
                });
    }

    /** egpu controller makes an ElasticGPU for each card a DRA claim holds, with the claim and its pod. */
    private static void elasticGpusForClaims(TestCluster cluster, String node) {
        ElasticGPUCrds.apply(cluster.client());
        ControlPlane cp = cluster.controlPlane();
        try (EgpuProcess controller = EgpuProcess.start(
                "controller",
                List.of("--kubeconfig", cp.kubeconfig().toString(), "--no-webhook", "--no-leader-election"),
                cp.workDir().resolve("logs").resolve("controller-dra.log"))) {
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(cluster.client()
                                    .resources(ElasticGPU.class)
                                    .list()
                                    .getItems())
                            .filteredOn(g -> node.equals(g.getSpec().getNodeName()))
                            .extracting(
                                    g -> g.getSpec().getSource().getGpuShare().getIndex() + " "
                                            + g.getSpec().getPodRef().getName() + " "
                                            + g.getSpec().getPodRef().getContainer() + " "
                                            + g.getSpec().getCapacity().get("elasticgpu.io/gpu-memory"))
                            .containsExactlyInAnyOrder("0 a claim/a 8192", "0 b claim/b 6144"));
        }
    }

    private AgentConfig agentConfig(String node) {
        return DraAgents.config(node, dir);
    }

    private DraConfig draConfig() {
        return new DraConfig(dir.resolve("plugin"), dir.resolve("registry"), dir.resolve("cdi"));
    }

    private static DeviceRequestAllocationResult result(ResourceClaim claim) {
        assertThat(claim.getStatus()).isNotNull();
        assertThat(claim.getStatus().getAllocation())
                .as("claim %s allocated", claim.getMetadata().getName())
                .isNotNull();
        return claim.getStatus().getAllocation().getDevices().getResults().getFirst();
    }

    private static io.fabric8.kubernetes.api.model.resource.v1.Device device(
            io.fabric8.kubernetes.client.KubernetesClient client, String node, int index) {
        return client.resources(ResourceSlice.class)
                .withName(SlicePublisher.sliceName(node))
                .get()
                .getSpec()
                .getDevices()
                .get(index);
    }

    /** From the claims' status alone: what each device's claims consume is at most its capacity. */
    private static void auditCapacity(List<ResourceClaim> claims, ResourceSlice slice) {
        Map<String, Map<String, BigDecimal>> used = new HashMap<>();
        for (ResourceClaim c : claims) {
            if (c.getStatus() == null || c.getStatus().getAllocation() == null) {
                continue;
            }
            for (var r : c.getStatus().getAllocation().getDevices().getResults()) {
                r.getConsumedCapacity()
                        .forEach((name, q) -> used.computeIfAbsent(r.getDevice(), d -> new HashMap<>())
                                .merge(name, Quantity.getAmountInBytes(q), BigDecimal::add));
            }
        }
        for (var d : slice.getSpec().getDevices()) {
            used.getOrDefault(d.getName(), Map.of())
                    .forEach((name, sum) -> assertThat(sum)
                            .as("%s %s", d.getName(), name)
                            .isLessThanOrEqualTo(Quantity.getAmountInBytes(
                                    d.getCapacity().get(name).getValue())));
        }
        assertThat(used).as("something was allocated").isNotEmpty();
    }
}
