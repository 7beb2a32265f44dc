package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The configured policy, rebuilt now and then for the fragmentation-aware ones ({@code elastic}, {@code fgd}),
 * whose expected workload is estimated, as the FGD paper does, from the pods the cluster holds (the GPU pods and the
 * pods without GPUs that share their nodes or their scheduler); with no GPU pod yet,
 * the expected pod is one whole card. Rebuilt every {@code refresh}, and sooner while the number of GPU pods grows by
 * half since the last estimate: a young cluster's first pods would otherwise be placed for a workload of whole
 * cards for a whole refresh period (4 points less allocation on the openb trace). Thread-safe.
 */
public final class PolicyProvider implements Supplier<Policy> {

    /** The workload assumed before any GPU pod has been seen: keep whole cards free. */
    static final TypicalWorkload DEFAULT_WORKLOAD =
            TypicalWorkload.of(List.of(new TypicalWorkload.Typical(Ask.wholeCards(0, 0, 1), 1.0)));

    private final PolicyName name;
    private final Supplier<List<Pod>> pods;
    /** What the pods without GPUs that share the GPU nodes ask: part of the workload, as in the FGD paper. */
    private final Supplier<List<Ask>> hostAsks;
    /** How many GPU pods there are now, cheaply: a rebuild is due when it grew by half since the last. */
    private final IntSupplier grown;

    private final PodAsks.Units units;
    private final InstantSource clock;
    private final Duration refresh;
    private volatile Policy current;
    private volatile Instant built = Instant.MIN;
    private volatile int estimatedFrom = -1;

    /**
     * @param pods     the GPU pods the estimate is made from
     * @param hostAsks what the pods without GPUs that share the GPU nodes ask
     * @param count    how many pods there are, without copying them
     */
    public PolicyProvider(
            PolicyName name,
            Supplier<List<Pod>> pods,
            Supplier<List<Ask>> hostAsks,
            IntSupplier count,
            PodAsks.Units units,
            InstantSource clock,
            Duration refresh) {
        this.name = name;
        this.pods = pods;
        this.hostAsks = hostAsks;
        this.grown = count;
        this.units = units;
        this.clock = clock;
        this.refresh = refresh;
        this.current = Policies.create(name, PolicyContext.of(new SharedRandom(), DEFAULT_WORKLOAD));
    }

    @Override
    public Policy get() {
        if (name.needsWorkload() && due()) {
            synchronized (this) {
                if (due()) {
                    estimatedFrom = grown.getAsInt();
                    current = Policies.create(name, PolicyContext.of(new SharedRandom(), workload(pods.get())));
                    built = clock.instant();
                }
            }
        }
        return current;
    }

    private boolean due() {
        return clock.instant().isAfter(built.plus(refresh)) || grown.getAsInt() > estimatedFrom * 3 / 2;
    }

    private TypicalWorkload workload(List<Pod> seen) {
        List<Ask> asks = new ArrayList<>(hostAsks.get());
        for (Pod pod : seen) {
            try {
                asks.addAll(PodAsk.of(pod, units).asks());
            } catch (InvalidAskException ignored) {
                // such a pod is answered with an error and never placed: it is no part of the workload
            }
        }
        return asks.stream().noneMatch(Ask::needsCards) ? DEFAULT_WORKLOAD : TypicalWorkload.estimate(asks, 95);
    }

    /** Random numbers for the {@code random} policy that any thread may draw. */
    private static final class SharedRandom implements RandomGenerator {
        @Override
        public long nextLong() {
            return ThreadLocalRandom.current().nextLong();
        }
    }
}
