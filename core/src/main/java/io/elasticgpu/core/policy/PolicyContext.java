package io.elasticgpu.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * What policies may be built with: a random generator (only {@code random} draws from it) and, for the
 * fragmentation-aware policies, the expected workload.
 */
public record PolicyContext(RandomGenerator random, Optional<TypicalWorkload> workload) {

    public PolicyContext {
        requireNonNull(random, "random");
        requireNonNull(workload, "workload");
    }

    public static PolicyContext of(RandomGenerator random, TypicalWorkload workload) {
        return new PolicyContext(random, Optional.of(workload));
    }

    public static PolicyContext withoutWorkload(RandomGenerator random) {
        return new PolicyContext(random, Optional.empty());
    }

    TypicalWorkload requireWorkload(String policy) {
        return workload.orElseThrow(() -> new IllegalArgumentException(
                "policy %s needs the expected workload; estimate it from a pod list first".formatted(policy)));
    }
}
