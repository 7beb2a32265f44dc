package io.elasticgpu.bench.cluster;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Request;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.simulator.trace.TracePod;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A trace's nodes and pods as Kubernetes objects: each node as the node agent would publish it (kwok plays its
 * kubelet), each pod asking its share in Elastic GPU's resources: a card fraction as {@code gpu-core} (percent),
 * whole cards as {@code gpu}, {@code gpu_spec} as required node affinity on the model label, CPU and memory as
 * requests.
 */
final class ReplayObjects {

    /** The pod's index in arrival order. */
    static final String INDEX = "bench.elasticgpu.io/arrival";

    private ReplayObjects() {
    }

    static io.fabric8.kubernetes.api.model.Node node(String name, Node node) {
        Card first = node.cards().getFirst();
        GpuNodeSpec spec = new GpuNodeSpec(name, node.cards().size(), first.model(), first.memoryMib(), node.cpuMilli(),
                node.memoryMib(), List.of());
        // The simulator's pod limit per node, so that neither side stops at kubelet's default of 110.
        return new NodeBuilder(FakeGpuNodes.toNode(spec)).editStatus()
                .addToCapacity("pods", new Quantity(Integer.toString(node.maxPods())))
                .addToAllocatable("pods", new Quantity(Integer.toString(node.maxPods())))
                .endStatus().build();
    }

    static Pod pod(TracePod trace, int index, String namespace, String schedulerName) {
        Request r = trace.request();
        Map<String, Quantity> requests = new LinkedHashMap<>();
        requests.put("cpu", new Quantity(r.cpuMilli() + "m"));
        requests.put("memory", new Quantity(r.memoryMib() + "Mi"));
        Map<String, Quantity> limits = new LinkedHashMap<>();
        if (r.needsCards()) {
            if (r.wholeCards()) {
                limits.put(ResourceNames.GPU, new Quantity(Integer.toString(r.cards())));
            } else {
                if (r.milliPerCard() % 10 != 0) {
                    throw new IllegalArgumentException("pod %s asks %d milli-GPU; gpu-core counts whole percent, so the"
                            .formatted(trace.name(), r.milliPerCard()) + " share must be a multiple of 10");
                }
                limits.put(ResourceNames.GPU_CORE, new Quantity(Integer.toString(r.milliPerCard() / 10)));
                if (r.cards() > 1) {
                    limits.put(ResourceNames.GPU_COUNT, new Quantity(Integer.toString(r.cards())));
                }
            }
            requests.putAll(limits);
        }
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(trace.name()).withNamespace(namespace)
                .addToAnnotations(INDEX, Integer.toString(index)).endMetadata()
                .withNewSpec().withSchedulerName(schedulerName).withTerminationGracePeriodSeconds(0L)
                .addNewContainer().withName("main").withImage("registry.k8s.io/pause:3.10")
                .withNewResources().withRequests(requests).withLimits(limits.isEmpty() ? null : limits).endResources()
                .endContainer().endSpec();
        if (!r.models().isEmpty()) {
            pod.editSpec().withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm().addNewMatchExpression().withKey(NodeLabels.PRODUCT).withOperator("In")
                    .withValues(r.models().stream().map(NodeLabels::value).distinct().toList())
                    .endMatchExpression().endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity().endAffinity().endSpec();
        }
        return pod.build();
    }
}
