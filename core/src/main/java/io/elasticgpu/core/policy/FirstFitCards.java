package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Request;
import io.elasticgpu.core.snapshot.NodeState;

/**
 * A policy's scores for the cards a device allocator takes rather than the ones the policy would pick: the first
 * that fit, in index order ({@link CardChoice#firstFit}), as kube-scheduler's DRA allocator takes the devices of a
 * node's ResourceSlice. The extender only chooses the node of a pod whose cards come through ResourceClaims; ranking
 * the nodes by the card the pod will really get keeps it from choosing a node for a card the allocator leaves.
 * Immutable.
 *
 * @param policy the policy that scores
 */
public record FirstFitCards(Policy policy) implements Policy {

    public FirstFitCards {
        requireNonNull(policy, "policy");
    }

    @Override
    public String name() {
        return policy.name();
    }

    @Override
    public Choice choose(Request request, NodeState node) {
        return request.needsCards() ? policy.scoreTaking(request, node, CardChoice.firstFit(request, node))
                : policy.choose(request, node);
    }

    @Override
    public boolean cacheable() {
        return policy.cacheable();
    }

    @Override
    public void normalize(double[] scores, int count) {
        policy.normalize(scores, count);
    }
}
