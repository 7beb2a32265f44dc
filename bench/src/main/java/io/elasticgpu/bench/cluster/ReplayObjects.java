package io.elasticgpu.bench.cluster;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.resourceslice.SliceDevices;
import io.elasticgpu.node.resourceslice.SlicePublisher;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A trace's nodes and pods as Kubernetes objects: each node as the node agent would publish it (kwok plays its
 * kubelet), each pod asking its share in Elastic GPU's resources: a card fraction as {@code gpu-core} (percent),
 * whole cards as {@code gpu}, {@code gpu_spec} as required node affinity on the model label, CPU and memory as
 * requests.
 *
 * <p>With DRA ({@code --api dra}) each node is as a DRA-mode agent leaves it (labelled so, no extended resources,
 * its ResourceSlice), and each GPU pod uses a ResourceClaim of its own: {@code count} cards of class
 * {@code gpu.elasticgpu.io}, a fraction as {@code cores} (percent) with one memory block (a claim naming no memory
 * takes all of it, which is the whole card), whole cards with no capacity asked.
 */
public final class ReplayObjects {

    /** The pod's index in arrival order. */
    public static final String INDEX = "bench.elasticgpu.io/arrival";

    private ReplayObjects() {}

    public static io.fabric8.kubernetes.api.model.Node node(String name, Node node) {
        Card first = node.cards().getFirst();
        GpuNodeSpec spec = new GpuNodeSpec(
                name,
                node.cards().size(),
                first.model(),
                first.memoryMib(),
                node.cpuMilli(),
                node.memoryMib(),
                List.of());
        // The simulator's pod limit per node, so that neither side stops at kubelet's default of 110.
        return new NodeBuilder(FakeGpuNodes.toNode(spec))
                .editStatus()
                .addToCapacity("pods", new Quantity(Integer.toString(node.maxPods())))
                .addToAllocatable("pods", new Quantity(Integer.toString(node.maxPods())))
                .endStatus()
                .build();
    }

    /** The node as a DRA-mode agent leaves it: labelled {@code dra}, no extended resource of a device plugin. */
    static io.fabric8.kubernetes.api.model.Node draNode(String name, Node node) {
        io.fabric8.kubernetes.api.model.Node n = node(name, node);
        n.getMetadata().getLabels().put(NodeLabels.API, NodeLabels.API_DRA);
        n.getStatus().getCapacity().keySet().removeIf(k -> k.contains("/"));
        n.getStatus().getAllocatable().keySet().removeIf(k -> k.contains("/"));
        return n;
    }

    /** The ResourceSlice a DRA-mode agent publishes for the node's cards, all healthy. */
    static ResourceSlice slice(String name, Node node, long blockMib) {
        List<Gpu> gpus = new ArrayList<>();
        for (Card c : node.cards()) {
            gpus.add(new Gpu(
                    c.index(),
                    "GPU-%s-%d".formatted(name, c.index()),
                    c.model(),
                    c.memoryMib(),
                    "00000000:%02x:00.0".formatted(c.index() + 1),
                    c.index(),
                    0,
                    false));
        }
        Hardware hw = new Hardware("570.86.15", gpus, node.topology());
        CardHealth health = new CardHealth(
                gpus.size(),
                new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)),
                InstantSource.system());
        return SlicePublisher.slice(name, SliceDevices.devices(hw, health, blockMib), 1, null);
    }

    /** The claim of a GPU pod under DRA, named as the pod. */
    static ResourceClaim claim(TracePod trace, String namespace, long blockMib) {
        Ask ask = trace.ask();
        var exactly = new ResourceClaimBuilder()
                .withNewMetadata()
                .withName(trace.name())
                .withNamespace(namespace)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(DraNames.DRIVER)
                .withCount((long) ask.cards());
        if (!ask.wholeCards()) {
            exactly = exactly.withNewCapacity()
                    .addToRequests(DraNames.CORES, new Quantity(Integer.toString(percent(trace))))
                    .addToRequests(DraNames.MEMORY, new Quantity(blockMib + "Mi"))
                    .endCapacity();
        }
        return exactly.endExactly().endRequest().endDevices().endSpec().build();
    }

    public static Pod pod(TracePod trace, int index, String namespace, String schedulerName) {
        return pod(trace, index, namespace, schedulerName, false);
    }

    /** @param dra the pod's cards come through its claim (see {@link #claim}), not resource names */
    static Pod pod(TracePod trace, int index, String namespace, String schedulerName, boolean dra) {
        Ask ask = trace.ask();
        Map<String, Quantity> requests = new LinkedHashMap<>();
        requests.put("cpu", new Quantity(ask.cpuMilli() + "m"));
        requests.put("memory", new Quantity(ask.memoryMib() + "Mi"));
        Map<String, Quantity> limits = new LinkedHashMap<>();
        if (ask.needsCards() && !dra) {
            if (ask.wholeCards()) {
                limits.put(ResourceNames.GPU, new Quantity(Integer.toString(ask.cards())));
            } else {
                limits.put(ResourceNames.GPU_CORE, new Quantity(Integer.toString(percent(trace))));
                if (ask.cards() > 1) {
                    limits.put(ResourceNames.GPU_COUNT, new Quantity(Integer.toString(ask.cards())));
                }
            }
            requests.putAll(limits);
        }
        PodBuilder pod = new PodBuilder()
                .withNewMetadata()
                .withName(trace.name())
                .withNamespace(namespace)
                .addToAnnotations(INDEX, Integer.toString(index))
                .endMetadata()
                .withNewSpec()
                .withSchedulerName(schedulerName)
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("main")
                .withImage("registry.k8s.io/pause:3.10")
                .withNewResources()
                .withRequests(requests)
                .withLimits(limits.isEmpty() ? null : limits)
                .endResources()
                .endContainer()
                .endSpec();
        if (ask.needsCards() && dra) {
            pod.editSpec()
                    .addNewResourceClaim()
                    .withName("gpu")
                    .withResourceClaimName(trace.name())
                    .endResourceClaim()
                    .editFirstContainer()
                    .editResources()
                    .addNewClaim()
                    .withName("gpu")
                    .endClaim()
                    .endResources()
                    .endContainer()
                    .endSpec();
        }
        if (!ask.models().isEmpty()) {
            pod.editSpec()
                    .withNewAffinity()
                    .withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                    .addNewNodeSelectorTerm()
                    .addNewMatchExpression()
                    .withKey(NodeLabels.PRODUCT)
                    .withOperator("In")
                    .withValues(ask.models().stream()
                            .map(NodeLabels::value)
                            .distinct()
                            .toList())
                    .endMatchExpression()
                    .endNodeSelectorTerm()
                    .endRequiredDuringSchedulingIgnoredDuringExecution()
                    .endNodeAffinity()
                    .endAffinity()
                    .endSpec();
        }
        return pod.build();
    }

    /** A fraction of a card in whole percent, as both {@code gpu-core} and the DRA {@code cores} capacity count. */
    public static int percent(TracePod trace) {
        int milli = trace.ask().milliPerCard();
        if (milli % 10 != 0) {
            throw new IllegalArgumentException(
                    "pod %s asks %d milli-GPU; gpu-core counts whole percent, so the".formatted(trace.name(), milli)
                            + " share must be a multiple of 10");
        }
        return milli / 10;
    }
}
