package io.elasticgpu.simulator.replay;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * Replays one trace under several policies and seeds, runs in parallel on all cores. For one seed every policy sees
 * the same arrival order and node priority, so policies differ only in their decisions.
 */
public final class Experiment {

    /** The FGD paper's inflation: pods arrive until they ask 130 % of the cluster's GPU. */
    public static final double PAPER_INFLATION = 1.3;

    /** The FGD paper's share of pods the typical shapes must cover. */
    public static final int TYPICAL_COVERAGE_PERCENT = 95;

    /** One finished replay. */
    public record Run(String policy, long seed, EventLog log, long elapsedNanos) {}

    /** Hears about finished runs as they finish, from any thread. */
    @FunctionalInterface
    public interface Progress {
        void finished(int done, int total, Run run);
    }

    private final Trace trace;
    private final TypicalWorkload workload;
    private final Fragmentation metric;
    private final double inflation;

    public Experiment(Trace trace, double inflation) {
        this.trace = requireNonNull(trace, "trace");
        this.inflation = inflation;
        List<Ask> asks = trace.pods().stream().map(TracePod::ask).toList();
        this.workload = TypicalWorkload.estimate(asks, TYPICAL_COVERAGE_PERCENT);
        this.metric = Fragmentation.gpuAndCpu(workload);
    }

    public TypicalWorkload workload() {
        return workload;
    }

    public Fragmentation metric() {
        return metric;
    }

    /** The policy named {@code name} for {@code seed}, built against this trace's workload. */
    public Policy policy(String name, long seed) {
        RandomGenerator random = generator(seed + 0x9E37_79B9_7F4A_7C15L);
        return Policies.create(name, PolicyContext.of(random, workload));
    }

    /** Runs every policy on every seed; results in the order of {@code policies}, then {@code seeds}. */
    public List<Run> run(List<String> policies, List<Long> seeds, Progress progress) {
        policies.forEach(p -> policy(p, 0)); // fail on an unknown name before any work starts
        int threads = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), policies.size() * seeds.size()));
        List<Future<Run>> futures = new ArrayList<>();
        AtomicLong done = new AtomicLong();
        int total = policies.size() * seeds.size();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (String name : policies) {
                for (long seed : seeds) {
                    futures.add(pool.submit(() -> {
                        Run run = runOne(name, seed);
                        progress.finished((int) done.incrementAndGet(), total, run);
                        return run;
                    }));
                }
            }
            List<Run> runs = new ArrayList<>();
            for (Future<Run> f : futures) {
                runs.add(f.get());
            }
            return runs;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    /** One replay of one policy on one seed. */
    public Run runOne(String policyName, long seed) {
        long start = System.nanoTime();
        Order order = order(seed);
        EventLog log = new Replay(order.nodes(), policy(policyName, seed), metric).run(order.arrivals(), done -> {});
        return new Run(policyName, seed, log, System.nanoTime() - start);
    }

    /** The pods in their arrival order and the nodes in their priority order, for one seed. */
    public record Order(List<TracePod> arrivals, List<Node> nodes) {}

    /** The order every policy sees for {@code seed}: what a replay elsewhere (a real cluster) must repeat. */
    public Order order(long seed) {
        RandomGenerator random = generator(seed);
        List<TracePod> arrivals = Arrivals.order(trace.pods(), trace.capacityMilli(), inflation, random);
        return new Order(arrivals, prioritised(trace.nodes(), random));
    }

    /** Nodes sorted by name, then ordered by a seeded random priority (PROTOCOL.md, replay step 5). */
    static List<Node> prioritised(List<Node> nodes, RandomGenerator random) {
        List<Node> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(Node::name));
        Arrivals.shuffle(sorted, random);
        return sorted;
    }

    private static RandomGenerator generator(long seed) {
        return RandomGeneratorFactory.of("L64X128MixRandom").create(seed);
    }
}
