package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.scheduler.cache.NodeConversion;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.elasticgpu.scheduler.decision.PodFit;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The node soak's extender: chooses the cards of a pod on the one node with the extender's own code (the pod's asks
 * read as the extender reads them, the node as the agent published it, health included, binpack choosing the cards)
 * against the pods the soak keeps running, and writes the plan as the extender's bind does.
 */
final class NodePlanner {

    static final PodAsks.Units UNITS = new PodAsks.Units(
            NodeRig.BLOCK_MIB,
            NodeRig.ALIYUN_UNIT_MIB,
            ResourceNames.GPU,
            ResourceNames.GPU_MEMORY,
            ResourceNames.GPU_CORE,
            ResourceNames.GPU_COUNT);

    /** A pod's cards as the extender would bind them: the annotation, and the placements the planner counts. */
    record Plan(PodGrant allocation, List<Grant> placements) {}

    private final KubernetesClient client;
    private final String node;
    private final Policy policy;

    NodePlanner(KubernetesClient client, String node, RandomGenerator random) {
        this.client = client;
        this.node = node;
        this.policy = Policies.create("binpack", PolicyContext.withoutWorkload(random));
    }

    static boolean asksGpu(Pod pod) {
        return PodAsk.of(pod, UNITS).asksGpu();
    }

    /** The pod's cards beside {@code held}, or empty when it does not fit now (or asks no GPU). */
    Optional<Plan> plan(Pod pod, Collection<List<Grant>> held) {
        PodAsk ask = PodAsk.of(pod, UNITS);
        if (!ask.asksGpu()) {
            return Optional.empty();
        }
        Node published = NodeConversion.convert(client.nodes().withName(node).get())
                .orElseThrow(
                        () -> new IllegalStateException("node " + node + " has no inventory the extender can read"));
        NodeState state = NodeState.empty(published)
                .with(held.stream().flatMap(List::stream).toList());
        return PodFit.of(ask.gpuOnly(), state, policy) instanceof PodFit.Fits a
                ? Optional.of(new Plan(a.grant(published, ask), a.placements()))
                : Optional.empty();
    }
}
