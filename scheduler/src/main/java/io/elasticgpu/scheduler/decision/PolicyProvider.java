package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.InvalidGpuRequestException;
import io.elasticgpu.api.v1alpha1.PodGpuRequests;
import io.elasticgpu.core.model.Request;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;

import io.fabric8.kubernetes.api.model.Pod;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The configured policy, rebuilt now and then for the fragmentation-aware ones ({@code elastic}, {@code fgd}),
 * whose expected workload is estimated, as the FGD paper does, from the GPU pods the cluster holds; with none yet,
 * the expected pod is one whole card. Thread-safe.
 */
public final class PolicyProvider implements Supplier<Policy> {

    /** The workload assumed before any GPU pod has been seen: keep whole cards free. */
    static final TypicalWorkload DEFAULT_WORKLOAD = TypicalWorkload.of(List.of(
            new TypicalWorkload.Typical(Request.wholeCards(0, 0, 1), 1.0)));

    private final String name;
    private final Supplier<List<Pod>> pods;
    private final PodGpuRequests.Units units;
    private final InstantSource clock;
    private final Duration refresh;
    private volatile Policy current;
    private volatile Instant built = Instant.MIN;

    /**
     * @throws IllegalArgumentException for an unknown policy name, listing the known ones
     */
    public PolicyProvider(String name, Supplier<List<Pod>> pods, PodGpuRequests.Units units, InstantSource clock,
                          Duration refresh) {
        this.name = name;
        this.pods = pods;
        this.units = units;
        this.clock = clock;
        this.refresh = refresh;
        this.current = Policies.create(name, PolicyContext.of(new SharedRandom(), DEFAULT_WORKLOAD));
    }

    @Override
    public Policy get() {
        if (Policies.needsWorkload(name) && clock.instant().isAfter(built.plus(refresh))) {
            synchronized (this) {
                if (clock.instant().isAfter(built.plus(refresh))) {
                    current = Policies.create(name, PolicyContext.of(new SharedRandom(), workload()));
                    built = clock.instant();
                }
            }
        }
        return current;
    }

    private TypicalWorkload workload() {
        List<Request> requests = new ArrayList<>();
        for (Pod pod : pods.get()) {
            try {
                requests.addAll(PodAsk.of(pod, units).requests());
            } catch (InvalidGpuRequestException ignored) {
                // such a pod is answered with an error and never placed: it is no part of the workload
            }
        }
        return requests.isEmpty() ? DEFAULT_WORKLOAD : TypicalWorkload.estimate(requests, 95);
    }

    /** Random numbers for the {@code random} policy that any thread may draw. */
    private static final class SharedRandom implements RandomGenerator {
        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }
    }
}
