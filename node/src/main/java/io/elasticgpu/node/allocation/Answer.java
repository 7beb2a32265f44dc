package io.elasticgpu.node.allocation;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One container's answered calls: the grant, whose plan it came from, and the device ids of each resource, so that
 * kubelet's records can later say which container really got it ({@code seen} once they did; {@code certain} when
 * the container was known, not guessed). Immutable.
 */
record Answer(
        ContainerGrant grant,
        ContainerKey planOwner,
        Map<String, List<String>> ids,
        long nanos,
        boolean seen,
        boolean certain) {

    Answer {
        requireNonNull(grant, "grant");
        requireNonNull(planOwner, "planOwner");
        ids = Map.copyOf(ids);
    }

    Answer plus(String resource, List<String> deviceIds) {
        var more = new java.util.HashMap<>(ids);
        more.put(resource, List.copyOf(deviceIds));
        return new Answer(grant, planOwner, more, nanos, seen, certain);
    }

    /** The same, now that kubelet's records show it. */
    Answer recorded() {
        return seen ? this : new Answer(grant, planOwner, ids, nanos, true, certain);
    }

    Set<String> resources() {
        return ids.keySet();
    }
}
