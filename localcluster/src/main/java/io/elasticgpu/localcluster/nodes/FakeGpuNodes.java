package io.elasticgpu.localcluster.nodes;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Creates kwok nodes that look like GPU nodes running Elastic GPU's agent:
 * <ul>
 * <li>capacity of every resource name of DESIGN.md: {@code elasticgpu.io/gpu} (cards), {@code gpu-memory} (MiB of
 *     all cards), {@code gpu-core} (100 per card), {@code gpu-count} (100 per card: a per-pod qualifier, not a
 *     consumable), and the compatibility names {@code nvidia.com/gpu} (100 per card: whole cards or HAMi's
 *     shares, as the agent advertises it), {@code aliyun.com/gpu-mem} (GiB),
 *     {@code volcano.sh/gpu-memory} (MiB), {@code volcano.sh/gpu-number};</li>
 * <li>the labels of {@link NodeLabels}; the {@link Annotations#INVENTORY} annotation;</li>
 * <li>the kwok annotation, so kwok plays their kubelet: it marks them Ready and runs the pods bound to them.</li>
 * </ul>
 */
public final class FakeGpuNodes {

    private FakeGpuNodes() {}

    public static Node toNode(GpuNodeSpec spec) {
        return new NodeBuilder(toBareNode(spec))
                .editMetadata()
                .addToLabels(NodeLabels.PRESENT, "true")
                .addToLabels(NodeLabels.PRODUCT, NodeLabels.value(spec.model()))
                .addToLabels(NodeLabels.MEMORY, Long.toString(spec.cardMemoryMib()))
                .addToLabels(NodeLabels.COUNT, Integer.toString(spec.cards()))
                .addToAnnotations(Annotations.INVENTORY, spec.inventory().toJson())
                .endMetadata()
                .build();
    }

    /**
     * The node without what a node agent publishes (the GPU labels and the inventory), for a test or demo that runs
     * the agent's publishing against it.
     */
    public static Node toBareNode(GpuNodeSpec spec) {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity(spec.cpuMilli() + "m"));
        capacity.put("memory", new Quantity(spec.memoryMib() + "Mi"));
        capacity.put("pods", new Quantity("110"));
        long totalMemory = spec.cardMemoryMib() * spec.cards();
        capacity.put(ResourceNames.GPU, new Quantity(Integer.toString(spec.cards())));
        capacity.put(ResourceNames.GPU_MEMORY, new Quantity(Long.toString(totalMemory)));
        capacity.put(ResourceNames.GPU_CORE, new Quantity(Integer.toString(100 * spec.cards())));
        capacity.put(ResourceNames.GPU_COUNT, new Quantity(Integer.toString(100 * spec.cards())));
        capacity.put(ResourceNames.NVIDIA_GPU, new Quantity(Integer.toString(100 * spec.cards())));
        capacity.put(ResourceNames.ALIYUN_GPU_MEM, new Quantity(Long.toString(totalMemory / 1024)));
        capacity.put(ResourceNames.VOLCANO_GPU_MEMORY, new Quantity(Long.toString(totalMemory)));
        capacity.put(ResourceNames.VOLCANO_GPU_NUMBER, new Quantity(Integer.toString(spec.cards())));
        return new NodeBuilder()
                .withNewMetadata()
                .withName(spec.name())
                .addToLabels("type", "kwok")
                .addToLabels("kubernetes.io/hostname", spec.name())
                .addToAnnotations(ControlPlane.KWOK_NODE_ANNOTATION, "fake")
                .endMetadata()
                .withNewStatus()
                .withCapacity(capacity)
                .withAllocatable(capacity)
                .endStatus()
                .build();
    }

    /** Creates the nodes and waits until every one is {@link #schedulable}. */
    public static List<Node> create(KubernetesClient client, List<GpuNodeSpec> specs, Duration timeout) {
        return createAndWait(client, specs.stream().map(FakeGpuNodes::toNode).toList(), timeout);
    }

    /**
     * Creates the nodes without inventories ({@link #toBareNode}) and waits until every one is {@link #schedulable}. */
    public static List<Node> createBare(KubernetesClient client, List<GpuNodeSpec> specs, Duration timeout) {
        return createAndWait(
                client, specs.stream().map(FakeGpuNodes::toBareNode).toList(), timeout);
    }

    private static List<Node> createAndWait(KubernetesClient client, List<Node> nodes, Duration timeout) {
        List<Node> created =
                nodes.stream().map(n -> client.nodes().resource(n).create()).toList();
        for (Node n : nodes) {
            client.nodes()
                    .withName(n.getMetadata().getName())
                    .waitUntilCondition(FakeGpuNodes::schedulable, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return created;
    }

    /**
     * Whether a pod may go to the node: Ready and untainted. A new node carries
     * {@code node.kubernetes.io/not-ready:NoSchedule} from the API server's admission until the node lifecycle
     * controller sees it Ready and removes it, which at 1,213 nodes takes minutes after kwok has marked them Ready
     * (the controller writes at 20 calls per second); kube-scheduler leaves tainted nodes out.
     */
    public static boolean schedulable(Node node) {
        return ready(node)
                && (node.getSpec() == null
                        || node.getSpec().getTaints() == null
                        || node.getSpec().getTaints().isEmpty());
    }

    static boolean ready(Node node) {
        return node != null
                && node.getStatus() != null
                && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(((NodeCondition) c).getStatus()));
    }
}
