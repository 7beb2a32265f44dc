package io.elasticgpu.simulator.replay;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.MigGeometry;
import java.util.ArrayList;
import java.util.List;

/**
 * What MIG's fixed partitions cost against shares, on one trace and cluster: for each seed, the same arrival order
 * and node priority replayed once per share policy ({@link Replay}) and once per way of choosing MIG instances
 * ({@link MigReplay}): each replay's log, and what its MIG instances hand out beyond the asks.
 */
public final class MigComparison {

    /**
     * One replay's outcome.
     *
     * @param name the share policy, or {@code mig} / {@code mig-first-fit}
     * @param log  the replay's events, for the allocation at each arrival level
     * @param mig  for MIG, the instances and what they handed out; empty for shares, which hand out what is asked
     *             (the trace asks no GPU memory, and a share holds what it asks)
     */
    public record Outcome(String name, EventLog log, java.util.Optional<MigReplay.Result> mig) {}

    /** One seed's outcomes, the share policies first. */
    public record SeedResult(long seed, List<Outcome> outcomes) {}

    private final Experiment experiment;
    private final MigGeometry geometry;
    private final List<String> policies;

    public MigComparison(Experiment experiment, MigGeometry geometry, List<String> policies) {
        this.experiment = requireNonNull(experiment, "experiment");
        this.geometry = requireNonNull(geometry, "geometry");
        this.policies = List.copyOf(policies);
    }

    public SeedResult run(long seed) {
        List<Outcome> outcomes = new ArrayList<>();
        for (String policy : policies) {
            outcomes.add(new Outcome(policy, experiment.runOne(policy, seed).log(), java.util.Optional.empty()));
        }
        Experiment.Order order = experiment.order(seed);
        for (MigReplay.Choice choice : MigReplay.Choice.values()) {
            MigReplay.Result r = new MigReplay(order.nodes(), geometry, choice).run(order.arrivals());
            outcomes.add(new Outcome(choice.label(), r.log(), java.util.Optional.of(r)));
        }
        return new SeedResult(seed, outcomes);
    }
}
