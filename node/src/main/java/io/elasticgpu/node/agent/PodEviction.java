package io.elasticgpu.node.agent;

import static java.util.Objects.requireNonNull;

/** What became of asking the API server to evict a pod of this node (policy/v1 Eviction). */
public sealed interface PodEviction {

    /** Accepted: the pod is being deleted, its grace period and PodDisruptionBudgets honoured. */
    record Evicted() implements PodEviction {}

    /**
     * Not evicted: a PodDisruptionBudget allows no disruption now (HTTP 429), or the call failed.
     *
     * @param why what the API server answered, for the operator
     */
    record Refused(String why) implements PodEviction {
        public Refused {
            requireNonNull(why, "why");
        }
    }
}
