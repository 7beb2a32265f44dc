package io.elasticgpu.controller.view;

import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;

/**
 * Who holds which card, cluster-wide, as the API server says: nodes from their {@code elasticgpu.io/inventory},
 * holders from their pods' {@code elasticgpu.io/allocation} and from the allocated DRA ResourceClaims of our driver
 * (what they are <em>granted</em>), and what they <em>use</em> from the nodes' {@code elasticgpu.io/usage}; the
 * TFLOPS still free per card, node and cluster by the model table ({@link FreeTflops}).
 * Immutable; built by {@link #of}, rendered by {@link ViewFormat}.
 *
 * @param pending  pods that ask GPUs and are not bound, in the scope's namespace, sorted
 * @param problems annotations that could not be read (also a node's usage) or do not match the nodes, in scope, sorted
 */
public record ClusterView(
        Scope scope, Summary summary, List<NodeView> nodes, List<PendingPod> pending, List<Problem> problems) {

    public ClusterView {
        nodes = List.copyOf(nodes);
        pending = List.copyOf(pending);
        problems = List.copyOf(problems);
    }

    /** Every GPU node, every namespace. */
    public static ClusterView of(List<Node> nodes, List<Pod> pods) {
        return of(nodes, pods, Scope.ALL);
    }

    /**
     * Reads nodes and pods as listed from the API server. Malformed annotations do not stop it: they become
     * {@link #problems()}. Pods that have finished or are being deleted hold nothing.
     *
     * @throws IllegalArgumentException when the scope names a node without a readable GPU inventory
     */
    public static ClusterView of(List<Node> nodes, List<Pod> pods, Scope scope) {
        return of(nodes, pods, List.of(), scope);
    }

    /**
     * The same, counting the cards the allocated ResourceClaims of our DRA driver hold as well; free TFLOPS in the
     * default precision ({@link Precision#DEFAULT}) by the shipped model table.
     */
    public static ClusterView of(List<Node> nodes, List<Pod> pods, List<ResourceClaim> claims, Scope scope) {
        return of(nodes, pods, claims, scope, ModelTable.shipped(), Precision.DEFAULT);
    }

    /** The same, free TFLOPS in {@code precision} by {@code models}. */
    public static ClusterView of(
            List<Node> nodes,
            List<Pod> pods,
            List<ResourceClaim> claims,
            Scope scope,
            ModelTable models,
            Precision precision) {
        return new Census(scope, models, precision).read(nodes, pods, claims);
    }
}
