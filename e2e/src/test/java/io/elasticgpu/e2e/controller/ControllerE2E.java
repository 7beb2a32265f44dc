package io.elasticgpu.e2e.controller;

import static io.elasticgpu.localcluster.nodes.AllocatedPods.setHealthy;
import static io.elasticgpu.localcluster.nodes.AllocatedPods.uuid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUSource;
import io.elasticgpu.api.v1alpha1.ElasticGPUSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.controller.provisioning.Desired;
import io.elasticgpu.controller.provisioning.DesiredGpu;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.provisioning.ElasticGPUNames;
import io.elasticgpu.controller.provisioning.Leadership;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.nodes.AllocatedPods;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code egpu controller} in-process against the real kube-apiserver: pods are bound to kwok GPU nodes directly with
 * the allocation annotation the extender would write, and the ElasticGPUs and claims are read back from the API.
 */
@ExtendWith(ControlPlaneExtension.class)
class ControllerE2E {

    private static final Duration WAIT = Duration.ofSeconds(45);

    @BeforeAll
    static void applyTheGeneratedCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    @Test
    void everyAllocationAppearsAsAnElasticGpuAndGoesWithItsPod(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 4, "Tesla-V100-SXM2-32GB", 32_768)))
                .getFirst();
        try (ElasticGPUController controller = started(cluster.client())) {
            Pod slice = create(
                    cluster, "infer", node, Map.of("main", List.of(new Share(1, uuid(node, 1), 300, 4096))), null);
            Pod whole = create(
                    cluster,
                    "train",
                    node,
                    Map.of(
                            "main",
                            List.of(
                                    new Share(2, uuid(node, 2), 1000, 32_768),
                                    new Share(3, uuid(node, 3), 1000, 32_768))),
                    null);

            String sliceName = ElasticGPUNames.of(node, 1, slice.getMetadata().getUid(), "main");
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(names(cluster, node))
                            .containsExactlyInAnyOrder(
                                    sliceName,
                                    ElasticGPUNames.of(
                                            node, 2, whole.getMetadata().getUid(), "main"),
                                    ElasticGPUNames.of(
                                            node, 3, whole.getMetadata().getUid(), "main")));
            ElasticGPU gpu = cluster.client()
                    .resources(ElasticGPU.class)
                    .withName(sliceName)
                    .get();
            assertThat(gpu.getSpec().getNodeName()).isEqualTo(node);
            assertThat(gpu.getSpec().getSource().getGpuShare().getIndex()).isEqualTo(1);
            assertThat(gpu.getSpec().getSource().getGpuShare().getUuid()).isEqualTo(uuid(node, 1));
            assertThat(gpu.getSpec().getCapacity())
                    .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("4096"))
                    .containsEntry(ResourceNames.GPU_CORE, new Quantity("30"));
            assertThat(gpu.getSpec().getPodRef().getName()).isEqualTo("infer");
            assertThat(gpu.getSpec().getPodRef().getNamespace()).isEqualTo(cluster.namespace());
            assertThat(gpu.getSpec().getPodRef().getContainer()).isEqualTo("main");
            assertThat(gpu.getStatus().getPhase()).isEqualTo(ElasticGPUStatus.Phase.Bound);
            assertThat(cluster.client()
                            .resources(ElasticGPU.class)
                            .withName(ElasticGPUNames.of(
                                    node, 2, whole.getMetadata().getUid(), "main"))
                            .get()
                            .getSpec()
                            .getSource()
                            .getPhysical()
                            .getIndex())
                    .isEqualTo(2);

            delete(cluster, "infer");
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(names(cluster, node)).hasSize(2).doesNotContain(sliceName));
        } finally {
            cleanUp(cluster);
        }
    }

    @Test
    void aClaimIsBoundWhileItsPodHoldsTheCardLostWhenTheCardFailsAndPendingAgainWhenThePodGoes(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 2, "Tesla-T4", 15_360)))
                .getFirst();
        KubernetesClient client = cluster.client();
        try (ElasticGPUController controller = started(client)) {
            createClass(client, cluster.namespace(), ElasticGPUClassSpec.ReclaimPolicy.Delete);
            ElasticGPUClaim claim = createClaim(cluster, "notebook");
            await().atMost(WAIT).until(() -> phase(cluster, "notebook") == ElasticGPUClaimStatus.Phase.Pending);

            Pod pod = create(
                    cluster, "nb", node, Map.of("main", List.of(new Share(0, uuid(node, 0), 500, 4096))), "notebook");
            String gpuName = ElasticGPUNames.of(node, 0, pod.getMetadata().getUid(), "main");
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(claim(cluster, "notebook").getStatus().getPhase())
                        .isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
                assertThat(claim(cluster, "notebook").getStatus().getElasticGPUName())
                        .isEqualTo(gpuName);
            });
            ElasticGPU gpu =
                    client.resources(ElasticGPU.class).withName(gpuName).get();
            assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo("notebook");
            assertThat(gpu.getSpec().getClaimRef().getNamespace()).isEqualTo(cluster.namespace());
            assertThat(gpu.getSpec().getClaimRef().getUid())
                    .isEqualTo(claim.getMetadata().getUid());

            setHealthy(client, node, 0, false);
            await().atMost(WAIT).until(() -> phase(cluster, "notebook") == ElasticGPUClaimStatus.Phase.Lost);
            setHealthy(client, node, 0, true);
            await().atMost(WAIT).until(() -> phase(cluster, "notebook") == ElasticGPUClaimStatus.Phase.Bound);

            delete(cluster, "nb");
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(client.resources(ElasticGPU.class).withName(gpuName).get())
                        .isNull();
                assertThat(claim(cluster, "notebook").getStatus().getPhase())
                        .isEqualTo(ElasticGPUClaimStatus.Phase.Pending);
                assertThat(claim(cluster, "notebook").getStatus().getElasticGPUName())
                        .isNull();
            });

            // A Pending claim can be used again by a new pod.
            Pod again = create(
                    cluster, "nb2", node, Map.of("main", List.of(new Share(1, uuid(node, 1), 500, 4096))), "notebook");
            await().atMost(WAIT)
                    .until(() -> ElasticGPUNames.of(node, 1, again.getMetadata().getUid(), "main")
                            .equals(claim(cluster, "notebook").getStatus().getElasticGPUName()));
        } finally {
            cleanUp(cluster);
        }
    }

    @Test
    void withARetainClassTheElasticGpuOfAGonePodStaysReleasedWithItsClaimRef(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 2, "Tesla-T4", 15_360)))
                .getFirst();
        KubernetesClient client = cluster.client();
        try (ElasticGPUController controller = started(client)) {
            createClass(client, cluster.namespace(), ElasticGPUClassSpec.ReclaimPolicy.Retain);
            createClaim(cluster, "kept");
            Pod pod = create(
                    cluster, "job", node, Map.of("main", List.of(new Share(1, uuid(node, 1), 200, 2048))), "kept");
            String gpuName = ElasticGPUNames.of(node, 1, pod.getMetadata().getUid(), "main");
            await().atMost(WAIT).until(() -> phase(cluster, "kept") == ElasticGPUClaimStatus.Phase.Bound);

            delete(cluster, "job");
            await().atMost(WAIT).untilAsserted(() -> {
                ElasticGPU gpu =
                        client.resources(ElasticGPU.class).withName(gpuName).get();
                assertThat(gpu.getStatus().getPhase()).isEqualTo(ElasticGPUStatus.Phase.Released);
                assertThat(gpu.getSpec().getClaimRef().getName()).isEqualTo("kept");
                assertThat(phase(cluster, "kept")).isEqualTo(ElasticGPUClaimStatus.Phase.Pending);
            });
        } finally {
            cleanUp(cluster);
        }
    }

    @Test
    void aRestartedControllerRepairsDriftBothWays(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 4, "Tesla-V100-SXM2-32GB", 32_768)))
                .getFirst();
        KubernetesClient client = cluster.client();
        try {
            List<String> expected = new ArrayList<>();
            try (ElasticGPUController first = started(client)) {
                for (int card = 0; card < 3; card++) {
                    Pod pod = create(
                            cluster,
                            "p" + card,
                            node,
                            Map.of("main", List.of(new Share(card, uuid(node, card), 250, 1024))),
                            null);
                    expected.add(
                            ElasticGPUNames.of(node, card, pod.getMetadata().getUid(), "main"));
                }
                await().atMost(WAIT)
                        .untilAsserted(
                                () -> assertThat(names(cluster, node)).containsExactlyInAnyOrderElementsOf(expected));
            }
            // While no controller runs: one deleted by hand, one changed by hand, and an orphan of a pod that never
            // was.
            client.resources(ElasticGPU.class).withName(expected.get(0)).delete();
            await().atMost(WAIT)
                    .until(() -> client.resources(ElasticGPU.class)
                                    .withName(expected.get(0))
                                    .get()
                            == null);
            client.resources(ElasticGPU.class).withName(expected.get(1)).edit(g -> {
                g.getSpec().getCapacity().put(ResourceNames.GPU_MEMORY, new Quantity("9999"));
                return g;
            });
            Pod ghost = new PodBuilder()
                    .withNewMetadata()
                    .withNamespace(cluster.namespace())
                    .withName("ghost")
                    .withUid("00000000-dead-beef-0000-000000000000")
                    .addToAnnotations(
                            Annotations.ALLOCATION,
                            new PodGrant(node, Map.of("main", List.of(new Share(3, uuid(node, 3), 100, 512)))).toJson())
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(node)
                    .endSpec()
                    .withNewStatus()
                    .withPhase("Running")
                    .endStatus()
                    .build();
            DesiredGpu orphan = Desired.of(List.of(ghost)).values().iterator().next();
            ElasticGPU created = client.resource(orphan.toResource()).create();
            assertThat(names(cluster, node)).contains(orphan.name());

            try (ElasticGPUController second = started(client)) {
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(names(cluster, node)).containsExactlyInAnyOrderElementsOf(expected);
                    assertThat(client.resources(ElasticGPU.class)
                                    .withName(expected.get(1))
                                    .get()
                                    .getSpec()
                                    .getCapacity())
                            .containsEntry(ResourceNames.GPU_MEMORY, new Quantity("1024"));
                });
            }
            assertThat(created.getMetadata().getName()).isEqualTo(orphan.name());
        } finally {
            cleanUp(cluster);
        }
    }

    @Test
    void withTwoHundredMixedPodsTheElasticGpusAreExactlyTheClusterViewAlsoAfterAControllerRestart(TestCluster cluster) {
        List<String> nodes = cluster.createGpuNodes(GpuNodeSpec.mixed("m", 12));
        KubernetesClient client = cluster.client();
        FirstFit cards = new FirstFit(client, nodes);
        try {
            try (ElasticGPUController controller = started(client)) {
                for (int i = 0; i < 200; i++) {
                    createMixed(cluster, cards, i);
                }
                awaitElasticGpusMatchTheView(cluster, nodes, 200);
            }
            // While no controller runs: 20 pods go, 10 come.
            for (int i = 0; i < 20; i++) {
                delete(cluster, "p%03d".formatted(i * 10 + 1));
            }
            for (int i = 200; i < 210; i++) {
                createMixed(cluster, cards, i);
            }
            try (ElasticGPUController restarted = started(client)) {
                awaitElasticGpusMatchTheView(cluster, nodes, 190);
            }
        } finally {
            cleanUp(cluster);
        }
    }

    /** One pod in ten takes whole cards (one or two), the others slices, one in seven with a second container. */
    private static void createMixed(TestCluster cluster, FirstFit cards, int i) {
        Map<String, List<Share>> containers = new LinkedHashMap<>();
        String node;
        if (i % 20 == 0) {
            node = cards.whole(1, containers, "main");
        } else if (i % 20 == 10) {
            node = cards.whole(2, containers, "main");
        } else {
            long memory = 1024L * (1 + i % 4); // 1..4 GiB
            node = cards.slice(50 + 25 * (i % 3), memory, containers, "main");
            if (i % 7 == 3) { // a second container on the same node,
                try { // where it still fits
                    cards.sliceOn(node, 50, 512, containers, "side");
                } catch (IllegalStateException full) {
                    containers.remove("side");
                }
            }
        }
        create(cluster, "p%03d".formatted(i), node, containers, null);
    }

    /** The ElasticGPUs of these nodes are exactly the holders {@code egpu inspect}'s view finds in the pods. */
    private static void awaitElasticGpusMatchTheView(TestCluster cluster, List<String> nodes, int pods) {
        KubernetesClient client = cluster.client();
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            ClusterView view = ClusterView.of(
                    client.nodes().list().getItems(),
                    client.pods().inAnyNamespace().list().getItems());
            Set<String> held = new TreeSet<>();
            view.nodes().stream()
                    .filter(n -> nodes.contains(n.name()))
                    .forEach(n -> n.cards()
                            .forEach(c -> c.holders()
                                    .forEach(h -> held.add("%s/%d %s %s"
                                            .formatted(n.name(), c.index(), h.podName(), h.container())))));
            Set<String> gpus = client.resources(ElasticGPU.class).list().getItems().stream()
                    .filter(g -> nodes.contains(g.getSpec().getNodeName()))
                    .map(g -> "%s/%d %s/%s %s"
                            .formatted(
                                    g.getSpec().getNodeName(),
                                    index(g),
                                    g.getSpec().getPodRef().getNamespace(),
                                    g.getSpec().getPodRef().getName(),
                                    g.getSpec().getPodRef().getContainer()))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(view.problems())
                    .filteredOn(p -> p.object().contains(cluster.namespace()))
                    .isEmpty();
            assertThat(held.stream().map(h -> h.split(" ")[1]).distinct().count())
                    .isEqualTo(pods);
            assertThat(gpus).isEqualTo(held);
        });
    }

    @Test
    void onlyTheLeaderRunsAndAnotherReplicaTakesOverWhenItStops(TestCluster cluster) {
        String node = cluster.createGpuNodes(List.of(GpuNodeSpec.of("a", 2, "Tesla-T4", 15_360)))
                .getFirst();
        KubernetesClient client = cluster.client();
        String ns = cluster.namespace();
        try (KubernetesClient otherClient = cluster.controlPlane().newClient();
                Leadership.Election one = new Leadership(ns, "one", Duration.ofSeconds(6))
                        .run(client, () -> new ElasticGPUController(client, Duration.ofSeconds(10)));
                Leadership.Election two = new Leadership(ns, "two", Duration.ofSeconds(6))
                        .run(otherClient, () -> new ElasticGPUController(otherClient, Duration.ofSeconds(10)))) {
            Pod first = create(
                    cluster, "first", node, Map.of("main", List.of(new Share(0, uuid(node, 0), 100, 512))), null);
            await().atMost(WAIT)
                    .until(() -> names(cluster, node)
                            .contains(ElasticGPUNames.of(
                                    node, 0, first.getMetadata().getUid(), "main")));
            String leader = holder(client, ns);
            assertThat(leader).isIn("one", "two");

            (leader.equals("one") ? one : two).close();
            await().atMost(WAIT).until(() -> !leader.equals(holder(client, ns)) && holder(client, ns) != null);
            Pod second = create(
                    cluster, "second", node, Map.of("main", List.of(new Share(1, uuid(node, 1), 100, 512))), null);
            await().atMost(WAIT)
                    .until(() -> names(cluster, node)
                            .contains(ElasticGPUNames.of(
                                    node, 1, second.getMetadata().getUid(), "main")));
        } finally {
            cleanUp(cluster);
        }
    }

    @Test
    void anImmediateClaimIsBoundToAPreCreatedAvailableElasticGpuWhichIsReleasedWhenTheClaimGoes(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        String node = cluster.namespace() + "-static";
        try (ElasticGPUController controller = started(client)) {
            ElasticGPUClass gpuClass = new ElasticGPUClass();
            gpuClass.setMetadata(
                    new ObjectMetaBuilder().withName(cluster.namespace()).build());
            gpuClass.setSpec(new ElasticGPUClassSpec());
            gpuClass.getSpec().setProvisioner(ElasticGPUClassSpec.Provisioner.GPU_SHARE);
            gpuClass.getSpec().setBindingMode(ElasticGPUClassSpec.BindingMode.Immediate);
            client.resource(gpuClass).create();
            ElasticGPU made = new ElasticGPU();
            made.setMetadata(new ObjectMetaBuilder().withName(node + "-slice").build());
            made.setSpec(new ElasticGPUSpec());
            made.getSpec().setNodeName(node);
            made.getSpec()
                    .setCapacity(Map.of(
                            ResourceNames.GPU_MEMORY,
                            new Quantity("8192"),
                            ResourceNames.GPU_CORE,
                            new Quantity("50")));
            ElasticGPUSource.Card card = new ElasticGPUSource.Card();
            card.setNodeName(node);
            card.setIndex(0);
            made.getSpec().setSource(new ElasticGPUSource());
            made.getSpec().getSource().setGpuShare(card);
            ElasticGPU created = client.resource(made).create();
            created.setStatus(new ElasticGPUStatus());
            created.getStatus().setPhase(ElasticGPUStatus.Phase.Available);
            client.resource(created).updateStatus();

            ElasticGPUClaim claim = createClaim(cluster, "static");
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(claim(cluster, "static").getStatus().getPhase())
                        .isEqualTo(ElasticGPUClaimStatus.Phase.Bound);
                assertThat(claim(cluster, "static").getStatus().getElasticGPUName())
                        .isEqualTo(node + "-slice");
                ElasticGPU gpu = client.resources(ElasticGPU.class)
                        .withName(node + "-slice")
                        .get();
                assertThat(gpu.getStatus().getPhase()).isEqualTo(ElasticGPUStatus.Phase.Bound);
                assertThat(gpu.getSpec().getClaimRef().getUid())
                        .isEqualTo(claim.getMetadata().getUid());
            });

            client.resource(claim).delete();
            await().atMost(WAIT)
                    .until(() -> client.resources(ElasticGPU.class)
                                    .withName(node + "-slice")
                                    .get()
                                    .getStatus()
                                    .getPhase()
                            == ElasticGPUStatus.Phase.Released);
        } finally {
            cleanUp(cluster);
        }
    }

    // ---- helpers

    private static ElasticGPUController started(KubernetesClient client) {
        ElasticGPUController controller = new ElasticGPUController(client, Duration.ofSeconds(10));
        controller.start();
        return controller;
    }

    /** A running pod bound to {@code node} as the extender leaves it: limits that match, allocation, phase. */
    private static Pod create(
            TestCluster cluster, String name, String node, Map<String, List<Share>> containers, String claim) {
        return AllocatedPods.create(cluster.client(), cluster.namespace(), name, node, containers, claim);
    }

    private static void delete(TestCluster cluster, String pod) {
        cluster.client()
                .pods()
                .inNamespace(cluster.namespace())
                .withName(pod)
                .withGracePeriod(0)
                .delete();
    }

    private static Set<String> names(TestCluster cluster, String node) {
        return cluster.client().resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> node.equals(g.getSpec().getNodeName()))
                .map(g -> g.getMetadata().getName())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static int index(ElasticGPU gpu) {
        var source = gpu.getSpec().getSource();
        return (source.getPhysical() != null ? source.getPhysical() : source.getGpuShare()).getIndex();
    }

    private static void createClass(KubernetesClient client, String name, ElasticGPUClassSpec.ReclaimPolicy policy) {
        client.resource(ElasticGPUClass.of(name, ElasticGPUClassSpec.Provisioner.GPU_SHARE, policy))
                .create();
    }

    private static ElasticGPUClaim createClaim(TestCluster cluster, String name) {
        return cluster.client()
                .resource(ElasticGPUClaim.of(
                        cluster.namespace(),
                        name,
                        cluster.namespace(),
                        Map.of(ResourceNames.GPU_MEMORY, new Quantity("4096"))))
                .create();
    }

    private static ElasticGPUClaim claim(TestCluster cluster, String name) {
        return cluster.client()
                .resources(ElasticGPUClaim.class)
                .inNamespace(cluster.namespace())
                .withName(name)
                .get();
    }

    private static ElasticGPUClaimStatus.Phase phase(TestCluster cluster, String name) {
        ElasticGPUClaimStatus status = claim(cluster, name).getStatus();
        return status == null ? null : status.getPhase();
    }

    private static String holder(KubernetesClient client, String ns) {
        Lease lease =
                client.leases().inNamespace(ns).withName(Leadership.LEASE_NAME).get();
        return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }

    /** Removes what this test left that the namespace's deletion does not: ElasticGPUs of its nodes, its class. */
    private static void cleanUp(TestCluster cluster) {
        KubernetesClient client = cluster.client();
        client.resources(ElasticGPU.class).list().getItems().stream()
                .filter(g -> g.getSpec().getNodeName() != null
                        && g.getSpec().getNodeName().startsWith(cluster.namespace() + "-"))
                .forEach(g -> client.resource(g).delete());
        client.resources(ElasticGPUClass.class).withName(cluster.namespace()).delete();
    }

    /** Chooses cards as the extender would, first fit, from the nodes' inventories. */
    private static final class FirstFit {
        private final Map<String, NodeInventory> inventories = new LinkedHashMap<>();
        private final Map<String, long[]> freeMemory = new LinkedHashMap<>();
        private final Map<String, int[]> freeMilli = new LinkedHashMap<>();

        FirstFit(KubernetesClient client, List<String> nodes) {
            for (String node : nodes) {
                NodeInventory inventory = NodeInventory.fromJson(client.nodes()
                        .withName(node)
                        .get()
                        .getMetadata()
                        .getAnnotations()
                        .get(Annotations.INVENTORY));
                inventories.put(node, inventory);
                freeMemory.put(
                        node,
                        inventory.cards().stream()
                                .mapToLong(NodeInventory.Card::memoryMib)
                                .toArray());
                int[] milli = new int[inventory.cards().size()];
                java.util.Arrays.fill(milli, 1000);
                freeMilli.put(node, milli);
            }
        }

        String whole(int count, Map<String, List<Share>> containers, String container) {
            for (String node : inventories.keySet()) {
                List<Share> shares = new ArrayList<>();
                NodeInventory inventory = inventories.get(node);
                for (int c = 0; c < inventory.cards().size() && shares.size() < count; c++) {
                    if (freeMilli.get(node)[c] == 1000) {
                        shares.add(new Share(
                                c,
                                inventory.cards().get(c).uuid(),
                                1000,
                                inventory.cards().get(c).memoryMib()));
                    }
                }
                if (shares.size() == count) {
                    shares.forEach(s -> take(node, s));
                    containers.put(container, shares);
                    return node;
                }
            }
            throw new IllegalStateException("no node has %d free cards".formatted(count));
        }

        String slice(int milli, long memory, Map<String, List<Share>> containers, String container) {
            for (String node : inventories.keySet()) {
                if (trySlice(node, milli, memory, containers, container)) {
                    return node;
                }
            }
            throw new IllegalStateException("no card has %d milli and %d MiB free".formatted(milli, memory));
        }

        void sliceOn(String node, int milli, long memory, Map<String, List<Share>> containers, String container) {
            if (!trySlice(node, milli, memory, containers, container)) {
                throw new IllegalStateException(
                        "no card on %s has %d milli and %d MiB free".formatted(node, milli, memory));
            }
        }

        /** A card already sliced with room left, else the highest free card (whole asks take the lowest). */
        private boolean trySlice(
                String node, int milli, long memory, Map<String, List<Share>> containers, String container) {
            NodeInventory inventory = inventories.get(node);
            int[] milliLeft = freeMilli.get(node);
            long[] memoryLeft = freeMemory.get(node);
            int chosen = -1;
            for (int c = 0; c < milliLeft.length && chosen < 0; c++) {
                if (milliLeft[c] < 1000 && milliLeft[c] >= milli && memoryLeft[c] >= memory) {
                    chosen = c;
                }
            }
            for (int c = milliLeft.length - 1; c >= 0 && chosen < 0; c--) {
                if (milliLeft[c] == 1000 && memoryLeft[c] >= memory) {
                    chosen = c;
                }
            }
            if (chosen < 0) {
                return false;
            }
            Share share = new Share(chosen, inventory.cards().get(chosen).uuid(), milli, memory);
            take(node, share);
            containers.put(container, List.of(share));
            return true;
        }

        private void take(String node, Share share) {
            freeMilli.get(node)[share.card()] -= share.milli();
            freeMemory.get(node)[share.card()] -= share.memoryMib();
        }
    }
}
