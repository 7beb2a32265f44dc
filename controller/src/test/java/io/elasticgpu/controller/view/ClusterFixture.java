package io.elasticgpu.controller.view;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.ContainerUsage;
import io.elasticgpu.api.v1alpha1.NodeUsage.Unattributed;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fixed small cluster, built as the API server would list it. {@code gpu-a8}: 8 × A100 80 GB in two NVLink islands
 * (0-3, 4-7), no usage measured; {@code gpu-t2}: 2 × T4 16 GB, card 1 unhealthy, its use measured ({@link #T2_USAGE});
 * {@code gpu-new}: labelled by the agent, no inventory yet.
 */
final class ClusterFixture {

    static final String A100 = "NVIDIA A100-SXM4-80GB";
    static final String T4 = "Tesla T4";
    static final long A100_MIB = 81920;
    static final long T4_MIB = 15360;
    static final String MEASURED = "2026-11-27T10:00:00Z";
    static final String BATCH_WORKER = "batch-inference-worker-with-a-rather-long-name-5d8f7";
    /**
     * gpu-t2 as its node agent measured it: on card 0, aliyun-share uses 9216 MiB of its 8192 (SM unknown),
     * the batch worker 1536 of its 2048 at 27 % SM, and a process of no pod 66 MiB; card 1 runs nothing.
     */
    static final NodeUsage T2_USAGE = new NodeUsage(
            MEASURED,
            List.of(
                    new ContainerUsage("ml", "aliyun-share", "app", 0, 9216, -1, 1),
                    new ContainerUsage("ml", BATCH_WORKER, "worker", 0, 1536, 27, 2)),
            List.of(new Unattributed(0, 66, 1)));

    private ClusterFixture() {}

    static String uuid(String node, int card) {
        return "GPU-%s-%04d".formatted(node, card);
    }

    static List<Node> nodes() {
        List<NodeInventory.Card> a8 = new ArrayList<>();
        List<NodeInventory.Link> islands = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            a8.add(new NodeInventory.Card(i, uuid("gpu-a8", i), A100, A100_MIB, true, i / 4));
            for (int j = i + 1; j < 8; j++) {
                if (i / 4 == j / 4) {
                    islands.add(new NodeInventory.Link(i, j, "NVLINK", 12));
                }
            }
        }
        List<NodeInventory.Card> t2 = List.of(
                new NodeInventory.Card(0, uuid("gpu-t2", 0), T4, T4_MIB, true, 0),
                new NodeInventory.Card(1, uuid("gpu-t2", 1), T4, T4_MIB, false, 0, "Xid 79", null));
        return List.of(
                withUsage(gpuNode("gpu-t2", new NodeInventory(t2, List.of()), "550.54.15"), T2_USAGE.toJson()),
                gpuNode("gpu-a8", new NodeInventory(a8, islands), "570.86.15"),
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("gpu-new")
                        .addToLabels(NodeLabels.PRESENT, "true")
                        .endMetadata()
                        .build(),
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("cpu-1")
                        .endMetadata()
                        .build());
    }

    static List<Pod> pods() {
        return List.of(
                holder(
                        "ml",
                        "train-big",
                        "gpu-a8",
                        "allocated",
                        Map.of(
                                "trainer",
                                List.of(
                                        whole("gpu-a8", 0),
                                        whole("gpu-a8", 1),
                                        whole("gpu-a8", 2),
                                        whole("gpu-a8", 3)))),
                holder(
                        "ml",
                        "infer-a",
                        "gpu-a8",
                        "allocated",
                        Map.of("server", List.of(new Share(4, uuid("gpu-a8", 4), 500, 20480)))),
                // assumed by the extender, not yet seen bound: it holds its share all the same
                notYetBound(holder(
                        "team-b",
                        "notebook-7f9c2",
                        "gpu-a8",
                        "assumed",
                        Map.of("jupyter", List.of(new Share(4, uuid("gpu-a8", 4), 300, 8192))))),
                holder(
                        "team-b",
                        "pipeline",
                        "gpu-a8",
                        "allocated",
                        containers(
                                "prep", List.of(new Share(5, uuid("gpu-a8", 5), 200, 4096)),
                                "model", List.of(new Share(5, uuid("gpu-a8", 5), 400, 16384), whole("gpu-a8", 6)))),
                aliyun(),
                holder(
                        "ml",
                        BATCH_WORKER,
                        "gpu-t2",
                        "allocated",
                        Map.of("worker", List.of(new Share(0, uuid("gpu-t2", 0), 300, 2048)))),
                withAllocationJson("ml", "broken", "gpu-a8", "{\"node\": \"gpu-a8\", \"containers\": {"),
                holder(
                        "team-b",
                        "ghost",
                        "gpu-t2",
                        "allocated",
                        Map.of("main", List.of(new Share(9, uuid("gpu-t2", 9), 1000, T4_MIB)))),
                pendingPod("ml", "waiting"),
                finished(holder("ml", "done", "gpu-a8", "allocated", Map.of("main", List.of(whole("gpu-a8", 7))))),
                deleting(holder("ml", "leaving", "gpu-a8", "allocated", Map.of("main", List.of(whole("gpu-a8", 7))))),
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("default")
                        .withName("web")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("nginx")
                        .endContainer()
                        .endSpec()
                        .build());
    }

    static Node gpuNode(String name, NodeInventory inventory, String driver) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(NodeLabels.PRESENT, "true")
                .addToLabels(NodeLabels.DRIVER, driver)
                .addToAnnotations(Annotations.INVENTORY, inventory.toJson())
                .endMetadata()
                .build();
    }

    /** {@code node} with {@code json} as its {@code elasticgpu.io/usage} annotation, in place of any it had. */
    static Node withUsage(Node node, String json) {
        node.getMetadata().getAnnotations().put(Annotations.USAGE, json);
        return node;
    }

    /** The fixture's nodes, {@code name}'s usage annotation being {@code json}. */
    static List<Node> nodesWithUsage(String name, String json) {
        return nodes().stream()
                .map(n -> n.getMetadata().getName().equals(name) ? withUsage(n, json) : n)
                .toList();
    }

    static Share whole(String node, int card) {
        return new Share(card, uuid(node, card), 1000, node.equals("gpu-t2") ? T4_MIB : A100_MIB);
    }

    static Map<String, List<Share>> containers(String a, List<Share> as, String b, List<Share> bs) {
        Map<String, List<Share>> m = new LinkedHashMap<>();
        m.put(a, as);
        m.put(b, bs);
        return m;
    }

    static Pod holder(String ns, String name, String boundTo, String phase, Map<String, List<Share>> containers) {
        return pod(ns, name, boundTo, new PodGrant(boundTo, containers).toJson(), phase);
    }

    static Pod withAllocationJson(String ns, String name, String boundTo, String json) {
        return pod(ns, name, boundTo, json, "allocated");
    }

    /** As Aliyun gpushare's scheduler extender leaves it: a memory slice, no compute share, its own annotations. */
    private static Pod aliyun() {
        Pod pod = holder(
                "ml",
                "aliyun-share",
                "gpu-t2",
                "allocated",
                Map.of("app", List.of(new Share(0, uuid("gpu-t2", 0), 0, 8192))));
        pod.getMetadata()
                .getAnnotations()
                .putAll(Map.of(
                        Annotations.ALIYUN_INDEX,
                        "0",
                        Annotations.ALIYUN_POD_MEMORY,
                        "8",
                        Annotations.ALIYUN_CARD_MEMORY,
                        "15",
                        Annotations.ALIYUN_ASSIGNED,
                        "true"));
        pod.getSpec().getContainers().getFirst().getResources().getLimits().clear();
        pod.getSpec()
                .getContainers()
                .getFirst()
                .getResources()
                .getLimits()
                .put("aliyun.com/gpu-mem", new Quantity("8"));
        return pod;
    }

    static Pod pendingPod(String ns, String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .addToLimits("elasticgpu.io/gpu-memory", new Quantity("8192"))
                .endResources()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }

    static Pod pod(String ns, String name, String boundTo, String allocationJson, String phase) {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(Annotations.ALLOCATION, allocationJson);
        annotations.put(Annotations.PHASE, phase);
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(ns)
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewSpec()
                .withNodeName(boundTo)
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .addToLimits("elasticgpu.io/gpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase(boundTo == null ? "Pending" : "Running")
                .endStatus()
                .build();
    }

    static Pod notYetBound(Pod pod) {
        pod.getSpec().setNodeName(null);
        pod.getStatus().setPhase("Pending");
        return pod;
    }

    static Pod finished(Pod pod) {
        pod.getStatus().setPhase("Succeeded");
        return pod;
    }

    static Pod deleting(Pod pod) {
        pod.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
        return pod;
    }
}
