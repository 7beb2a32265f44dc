package io.elasticgpu.simulator.bound;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Grant;
import java.util.List;

/**
 * Where an offline packer put pods: each entry the index of a pod in the list it was given and its grant. Pods not
 * listed were left out. Immutable; {@link PackingCheck} says whether it is feasible.
 */
public record Packing(List<Placed> placed) {

    /** Pod {@code pod} of the packed list, granted {@code grant}. */
    public record Placed(int pod, Grant grant) {
        public Placed {
            requireNonNull(grant, "grant");
        }
    }

    public Packing {
        placed = List.copyOf(placed);
    }

    /** GPU held, in milli-cards, counted as the simulator counts it: what each placed pod asks. */
    public long usedMilli() {
        return placed.stream().mapToLong(p -> p.grant().ask().totalMilli()).sum();
    }
}
