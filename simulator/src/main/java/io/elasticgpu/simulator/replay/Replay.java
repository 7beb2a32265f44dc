package io.elasticgpu.simulator.replay;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.placement.Decision;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.ClusterState;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * One replay: pods arrive one at a time at a cluster whose nodes are in priority order; each goes where the policy
 * says or fails and is dropped (no retries, no departures). The cluster's fragmentation is kept up to date
 * incrementally, one changed node per event.
 */
public final class Replay {

    private final ClusterState cluster;
    private final Placer placer;
    private final Fragmentation metric;
    private final double[] nodeFragmentation;
    private double fragmentation;
    private long arrived;

    /**
     * @param nodes  the cluster in priority order: on equal scores the earlier node wins
     * @param policy where pods go
     * @param metric the fragmentation measure reported after each event
     */
    public Replay(List<Node> nodes, Policy policy, Fragmentation metric) {
        this.cluster = new ClusterState(nodes);
        this.placer = new Placer(requireNonNull(policy, "policy"));
        this.metric = requireNonNull(metric, "metric");
        this.nodeFragmentation = new double[cluster.size()];
        for (int i = 0; i < cluster.size(); i++) {
            nodeFragmentation[i] = metric.of(cluster.node(i));
            fragmentation += nodeFragmentation[i];
        }
    }

    /** Replays every pod in order; {@code progress} hears the number of events done every 1,000 events. */
    public EventLog run(List<TracePod> arrivals, IntConsumer progress) {
        EventLog log = new EventLog(cluster.capacityMilli(), arrivals.size());
        for (int i = 0; i < arrivals.size(); i++) {
            TracePod pod = arrivals.get(i);
            Decision decision = placer.place(pod.ask(), cluster);
            record(log, pod, decision instanceof Decision.Placed placed ? placed.placement() : null);
            if ((i + 1) % 1_000 == 0) {
                progress.accept(i + 1);
            }
        }
        return log;
    }

    ClusterState cluster() {
        return cluster;
    }

    Placer placer() {
        return placer;
    }

    /** Records one event: the pod arrived and went to {@code placement}, or failed when it is null. */
    void record(EventLog log, TracePod pod, Grant placement) {
        arrived += pod.ask().totalMilli();
        String node = placement == null ? null : apply(placement);
        log.add(arrived, cluster.usedMilli(), fragmentation, node);
    }

    private String apply(Grant placement) {
        int index = cluster.indexOf(placement.node());
        cluster.assume(placement);
        double updated = metric.of(cluster.node(index));
        fragmentation += updated - nodeFragmentation[index];
        nodeFragmentation[index] = updated;
        return placement.node();
    }
}
