package io.elasticgpu.core.placement;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.snapshot.Reason;
import java.util.Map;

/** The outcome of one scheduling cycle: where the request goes, or why it goes nowhere. */
public sealed interface Decision {

    record Placed(Grant placement, double score) implements Decision {
        public Placed {
            requireNonNull(placement, "placement");
        }
    }

    /**
     * @param message what a person reads, e.g. {@code 0/3 nodes fit: 2 insufficient CPU, 1 insufficient GPU}
     * @param reasons how many nodes failed for each reason
     */
    record Unschedulable(String message, Map<Reason, Integer> reasons) implements Decision {
        public Unschedulable {
            requireNonNull(message, "message");
            reasons = Map.copyOf(reasons);
        }
    }
}
