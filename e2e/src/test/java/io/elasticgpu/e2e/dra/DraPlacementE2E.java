package io.elasticgpu.e2e.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.DraNodeAgent;
import io.elasticgpu.node.agent.KubernetesDraCluster;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * DRA pods placed fragmentation-aware: kube-scheduler as the chart configures it, its second extender
 * stanza calling the extender for every pod. Three nodes of two T4s each offer their cards through DRA only (agents
 * in DRA mode). Small claims arrive one at a time; the extender reads each pod's claim and chooses the node, counting
 * the claims already allocated as held, and kube-scheduler's allocator picks the card there. The small claims end up
 * together on one node, so a claim for two whole cards still finds a node. Run with the chart's configuration
 * without the extender, this test fails: kube-scheduler alone put the four on nodes x, y, z, x, which leaves no node
 * with two free cards. From the claims' status, no card is ever allocated above its capacity.
 */
@ExtendWith(ControlPlaneExtension.class)
class DraPlacementE2E {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long CARD_MIB = 15_360;

    @TempDir
    Path dir;

    @Test
    void smallClaimsArePackedSoThatAClaimForTwoWholeCardsStillFits(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        ChartConfig chart = chartsClasses(client);
        List<String> nodes = cluster.createGpuNodes(List.of(
                GpuNodeSpec.of("x", 2, "Tesla-T4", CARD_MIB),
                GpuNodeSpec.of("y", 2, "Tesla-T4", CARD_MIB),
                GpuNodeSpec.of("z", 2, "Tesla-T4", CARD_MIB)));
        List<AutoCloseable> agents = new ArrayList<>();
        try (EgpuProcess extender = extender(cp, chart, "extender-dra.log")) {
            for (int i = 0; i < nodes.size(); i++) {
                agents.add(agent(client, nodes.get(i), dir.resolve("n" + i))); // short: a socket path has 107 bytes
            }
            for (String node : nodes) {
                await().atMost(WAIT)
                        .until(() -> client.resources(ResourceSlice.class)
                                        .withName(SlicePublisher.sliceName(node))
                                        .get()
                                != null);
            }
            cp.restartScheduler(ChartConfig.write(
                    chart.withExtenderAt(extender.url()), cp.workDir().resolve("scheduler-dra.yaml")));

            var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
            var pods = client.pods().inNamespace(cluster.namespace());
            Map<String, String> placed = new LinkedHashMap<>();
            for (int i = 0; i < 4; i++) {
                String name = "small-" + i;
                claims.resource(claim(name, 1, "4Gi")).create();
                pods.resource(pod(name, chart.schedulerName())).create();
                // One at a time: each is decided against the ones before it, as allocated.
                await().atMost(WAIT)
                        .until(() -> pods.withName(name).get().getSpec().getNodeName() != null);
                placed.put(name, pods.withName(name).get().getSpec().getNodeName());
            }
            System.out.println("DraPlacementE2E: small claims placed on " + placed);
            assertThat(placed.values().stream().distinct())
                    .as("the four 4 GiB claims, packed")
                    .hasSize(1);

            claims.resource(claim("pair", 2, null)).create();
            pods.resource(pod("pair", chart.schedulerName())).create();
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(
                                    pods.withName("pair").get().getSpec().getNodeName())
                            .as("two whole cards on one node")
                            .isNotNull()
                            .isNotEqualTo(placed.get("small-0")));
            auditCapacity(claims.list().getItems());
        } finally {
            cp.restartScheduler(null);
            for (AutoCloseable a : agents) {
                a.close();
            }
        }
    }

    /**
     * A pod written for the device plugin ({@code elasticgpu.io/gpu: 1}) through the chart's scheduler, on a node whose
     * cards are offered through DRA only: kube-scheduler serves the extended resource with a claim it makes (KEP-5004,
     * the chart's DeviceClass mapping) and our extender binds the pod as claimed, without an allocation of its own.
     */
    @Test
    void aPodAskingTheExtendedResourceIsServedByDraThroughTheChartsScheduler(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        ChartConfig chart = chartsClasses(client);
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("ext", 2, "Tesla-T4", CARD_MIB)))
                .getFirst();
        DraSliceE2E.withoutExtendedResources(client, node);
        try (EgpuProcess extender = extender(cp, chart, "extender-dra-ext.log");
                AutoCloseable agent = agent(client, node, dir.resolve("e"))) {
            await().atMost(WAIT)
                    .until(() -> client.resources(ResourceSlice.class)
                                    .withName(SlicePublisher.sliceName(node))
                                    .get()
                            != null);
            cp.restartScheduler(ChartConfig.write(
                    chart.withExtenderAt(extender.url()), cp.workDir().resolve("scheduler-dra-ext.yaml")));
            var pods = client.pods().inNamespace(cluster.namespace());
            pods.resource(new PodBuilder()
                            .withNewMetadata()
                            .withName("whole")
                            .endMetadata()
                            .withNewSpec()
                            .withSchedulerName(chart.schedulerName())
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
            await().atMost(WAIT).untilAsserted(() -> {
                var pod = pods.withName("whole").get();
                assertThat(pod.getSpec().getNodeName())
                        .as("its conditions: %s", pod.getStatus().getConditions())
                        .isEqualTo(node);
                assertThat(pod.getStatus().getExtendedResourceClaimStatus())
                        .as("the claim kube-scheduler made")
                        .isNotNull();
                assertThat(pod.getMetadata().getAnnotations())
                        .as("no allocation of ours")
                        .doesNotContainKey(Annotations.ALLOCATION);
            });
            String made = pods.withName("whole")
                    .get()
                    .getStatus()
                    .getExtendedResourceClaimStatus()
                    .getResourceClaimName();
            auditCapacity(List.of(client.resources(ResourceClaim.class)
                    .inNamespace(cluster.namespace())
                    .withName(made)
                    .get()));
        } finally {
            cp.restartScheduler(null);
        }
    }

    /**
     * What kube-scheduler's own preemption does for a DRA pod: nothing. On a DRA-only node whose two cards are each
     * held by a pod of priority 0 through a claim for the whole card, a pod of priority 1,000 whose claim asks a
     * whole card stays pending and nobody is evicted: kube-scheduler's DynamicResources plugin reports the node as
     * unschedulable and unresolvable when it cannot allocate the claim, so preemption skips it ("Preemption is not
     * helpful for scheduling"), with the chart's configuration (the extender's preempt verb included) as without.
     */
    @Test
    void aDraPodOfHigherPriorityEvictsNobodyForItsCard(TestCluster cluster) throws Exception {
        KubernetesClient client = cluster.client();
        ControlPlane cp = cluster.controlPlane();
        ChartConfig chart = chartsClasses(client);
        for (Map.Entry<String, Integer> c :
                Map.of("egpu-e2e-dra-low", 0, "egpu-e2e-dra-high", 1_000).entrySet()) {
            client.resource(new io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder()
                            .withNewMetadata()
                            .withName(c.getKey())
                            .endMetadata()
                            .withValue(c.getValue())
                            .build())
                    .createOr(existing -> existing.update());
        }
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("pre", 2, "Tesla-T4", CARD_MIB)))
                .getFirst();
        try (EgpuProcess extender = extender(cp, chart, "extender-dra-preemption.log");
                AutoCloseable agent = agent(client, node, dir.resolve("p"))) {
            await().atMost(WAIT)
                    .until(() -> client.resources(ResourceSlice.class)
                                    .withName(SlicePublisher.sliceName(node))
                                    .get()
                            != null);
            cp.restartScheduler(ChartConfig.write(
                    chart.withExtenderAt(extender.url()), cp.workDir().resolve("scheduler-dra-preemption.yaml")));
            var claims = client.resources(ResourceClaim.class).inNamespace(cluster.namespace());
            var pods = client.pods().inNamespace(cluster.namespace());
            for (String name : List.of("low-0", "low-1", "high")) {
                claims.resource(claim(name, 1, null)).create();
                pods.resource(new PodBuilder(pod(name, chart.schedulerName()))
                                .editSpec()
                                .withPriorityClassName(name.equals("high") ? "egpu-e2e-dra-high" : "egpu-e2e-dra-low")
                                .endSpec()
                                .build())
                        .create();
                if (!name.equals("high")) {
                    await().atMost(WAIT)
                            .until(() -> pods.withName(name).get().getSpec().getNodeName() != null);
                }
            }
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(failedScheduling(client, cluster.namespace(), "high"))
                            .anySatisfy(m -> assertThat(m).contains("Preemption is not helpful for scheduling")));
            System.out.println("DraPlacementE2E: the high-priority DRA pod: "
                    + failedScheduling(client, cluster.namespace(), "high"));
            await().pollDelay(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        for (String name : List.of("low-0", "low-1")) {
                            assertThat(pods.withName(name).get().getMetadata().getDeletionTimestamp())
                                    .as("%s not evicted", name)
                                    .isNull();
                        }
                        assertThat(pods.withName("high").get().getSpec().getNodeName())
                                .isNull();
                    });
        } finally {
            cp.restartScheduler(null);
        }
    }

    private static List<String> failedScheduling(KubernetesClient client, String namespace, String pod) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> "FailedScheduling".equals(e.getReason())
                        && pod.equals(e.getInvolvedObject().getName()))
                .map(io.fabric8.kubernetes.api.model.Event::getMessage)
                .toList();
    }

    /** Creates the chart's DeviceClasses and answers what else the chart runs. */
    private static ChartConfig chartsClasses(KubernetesClient client) {
        Path repository = Binaries.E2E_DIR.toAbsolutePath().getParent();
        ChartConfig.deviceClasses(repository)
                .forEach(c -> client.resource(c).forceConflicts().serverSideApply());
        return ChartConfig.render(repository);
    }

    /** The extender as the chart starts it, logging to {@code log} in the control plane's logs. */
    private static EgpuProcess extender(ControlPlane cp, ChartConfig chart, String log) {
        List<String> args = new ArrayList<>(chart.extenderArgs());
        args.addAll(List.of("--kubeconfig", cp.kubeconfig().toString()));
        return EgpuProcess.launch(
                        "scheduler", args, cp.workDir().resolve("logs").resolve(log))
                .jvm(chart.extenderJvm())
                .start();
    }

    /** A DRA-mode agent on {@code node} with two simulated T4s; closing it stops the agent and its API client. */
    private static AutoCloseable agent(KubernetesClient client, String node, Path home) throws Exception {
        List<Gpu> gpus = List.of(
                new Gpu(0, "GPU-" + node + "-0", "Tesla T4", CARD_MIB, "00000000:01:00.0", 0, 0, false),
                new Gpu(1, "GPU-" + node + "-1", "Tesla T4", CARD_MIB, "00000000:02:00.0", 1, 0, false));
        AgentConfig config = DraAgents.config(node, home);
        KubernetesDraCluster draCluster = new KubernetesDraCluster(client, node, config.units());
        DraNodeAgent agent = DraNodeAgent.start(
                config,
                new DraConfig(home.resolve("plugin"), home.resolve("registry"), home.resolve("cdi")),
                SimulatedBackend.of(new Hardware("535.104.05", gpus, Topology.uniform(2, Link.UNKNOWN))),
                draCluster,
                Instant::now,
                new AgentMetrics(node));
        return () -> {
            agent.close();
            draCluster.close();
        };
    }

    /** A claim for {@code count} cards of ours, each with {@code memory} (null: the whole card). */
    private static ResourceClaim claim(String name, long count, String memory) {
        var exactly = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(DraNames.DRIVER)
                .withCount(count);
        if (memory != null) {
            exactly = exactly.withNewCapacity()
                    .addToRequests(DraNames.MEMORY, new Quantity(memory))
                    .endCapacity();
        }
        return exactly.endExactly().endRequest().endDevices().endSpec().build();
    }

    private static io.fabric8.kubernetes.api.model.Pod pod(String name, String scheduler) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(scheduler)
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName(name)
                .endResourceClaim()
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToRequests("cpu", new Quantity("1"))
                .addNewClaim()
                .withName("gpu")
                .endClaim()
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    /** From the claims' status alone: the memory each card's claims consume is at most the card's. */
    private static void auditCapacity(List<ResourceClaim> claims) {
        Map<String, BigDecimal> used = new HashMap<>();
        for (ResourceClaim c : claims) {
            assertThat(c.getStatus().getAllocation())
                    .as("claim %s allocated", c.getMetadata().getName())
                    .isNotNull();
            for (var r : c.getStatus().getAllocation().getDevices().getResults()) {
                used.merge(
                        r.getPool() + "/" + r.getDevice(),
                        Quantity.getAmountInBytes(r.getConsumedCapacity().get(DraNames.MEMORY)),
                        BigDecimal::add);
            }
        }
        System.out.println("DraPlacementE2E: memory per card " + used);
        used.forEach(
                (card, bytes) -> assertThat(bytes).as(card).isLessThanOrEqualTo(BigDecimal.valueOf(CARD_MIB << 20)));
    }
}
