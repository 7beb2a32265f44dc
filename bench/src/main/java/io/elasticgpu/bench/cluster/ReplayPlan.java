package io.elasticgpu.bench.cluster;

import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.replay.EventLog;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.replay.RecordedRun;
import io.elasticgpu.simulator.replay.Replay;
import io.elasticgpu.simulator.trace.OpenbTrace;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TraceFormatException;
import io.elasticgpu.simulator.trace.TracePod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a cluster replay creates, in order: the nodes in their priority order (named so that name order is priority
 * order, the extender's tie-break and the simulator's alike) and the pods up to the arrival cut; and what the
 * simulator does with the same pods on the same nodes.
 *
 * @param nodes    the trace's nodes in priority order
 * @param pods     the pods that arrive before the cut, in arrival order
 * @param capacity the nodes' GPU capacity in milli-cards
 */
public record ReplayPlan(
        String traceName,
        List<Node> nodes,
        List<TracePod> pods,
        long capacity,
        Experiment experiment,
        String policy,
        long seed) {

    /** kwok can play nodes of 1..16 cards ({@code GpuNodeSpec}). */
    static final int MAX_CARDS = 16;

    /** @throws IllegalArgumentException (or a {@link TraceFormatException}) naming the file and line to fix */
    public static ReplayPlan of(ReplayOptions o) {
        Trace trace = o.nodes() == null ? OpenbTrace.read(o.trace()) : OpenbTrace.read(o.trace(), o.nodes());
        Path nodeFile =
                o.nodes() != null ? o.nodes() : o.trace().toAbsolutePath().resolveSibling(OpenbTrace.GPU_NODE_LIST);
        for (int i = 0; i < trace.nodes().size(); i++) {
            int cards = trace.nodes().get(i).cards().size();
            if (cards < 1 || cards > MAX_CARDS) {
                throw new TraceFormatException(
                        nodeFile,
                        i + 2,
                        "gpu",
                        "node %s has %d GPUs; a replay node has 1..%d"
                                .formatted(trace.nodes().get(i).name(), cards, MAX_CARDS));
            }
        }
        if (o.maxNodes() > 0 && o.maxNodes() < trace.nodes().size()) {
            // With --events as with a seed: the order's first pods up to the cut of these nodes' capacity, on these
            // nodes in the order's node priority.
            trace = new Trace(trace.name(), spread(trace.nodes(), o.maxNodes()), trace.pods());
        }
        Experiment experiment = new Experiment(trace, Experiment.PAPER_INFLATION);
        experiment.policy(o.policy(), o.seed()); // an unknown policy fails here, naming the known ones
        List<TracePod> arrivals;
        List<Node> nodes;
        if (o.events() != null) {
            RecordedRun recorded = RecordedRun.read(o.events());
            arrivals = recorded.arrivals(trace);
            nodes = recorded.nodesInPriorityOrder(trace);
        } else {
            Experiment.Order order = experiment.order(o.seed());
            arrivals = order.arrivals();
            nodes = order.nodes();
        }
        long capacity = trace.capacityMilli();
        return new ReplayPlan(
                trace.name(), nodes, cut(arrivals, capacity, o.cutPct()), capacity, experiment, o.policy(), o.seed());
    }

    /** {@code milli} GPU milli-cards as a percentage of the plan's capacity. */
    public double percentOfCapacity(long milli) {
        return 100.0 * milli / capacity;
    }

    /** The name of the node at {@code rank} in priority order: name order is priority order. */
    public String kubeName(int rank) {
        return "p%04d-%s".formatted(rank, nodes.get(rank).name());
    }

    /**
     * What the simulator does with {@code order} on the nodes in priority order.
     *
     * @param usedMilli GPU milli-cards held after the last pod
     * @param nodes     where each pod went (a trace node name), null where it fit nowhere
     */
    public record Simulated(long usedMilli, List<String> nodes) {}

    public Simulated simulate(List<TracePod> order) {
        // its policy's typical pods estimated from these pods, as the extender estimates them from the cluster's
        Experiment asClusterKnows = new Experiment(new Trace(traceName, nodes, order), Experiment.PAPER_INFLATION);
        Replay replay = new Replay(nodes, asClusterKnows.policy(policy, seed), asClusterKnows.metric());
        EventLog log = replay.run(order, done -> {});
        List<String> placed = new ArrayList<>(log.size());
        for (int i = 0; i < log.size(); i++) {
            placed.add(log.node(i).orElse(null));
        }
        return new Simulated(log.size() == 0 ? 0 : log.used(log.size() - 1), placed);
    }

    /** The trace node a kwok node plays: its name without the priority prefix {@link #kubeName} adds. */
    public static String traceName(String kubeName) {
        return kubeName.substring(kubeName.indexOf('-') + 1);
    }

    /** {@code count} nodes spread evenly over the name-sorted list, so the subset keeps the mix of models and sizes. */
    static List<Node> spread(List<Node> all, int count) {
        List<Node> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparing(Node::name));
        List<Node> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(sorted.get((int) ((long) i * sorted.size() / count)));
        }
        return out;
    }

    private static List<TracePod> cut(List<TracePod> arrivals, long capacity, double cutPct) {
        List<TracePod> out = new ArrayList<>();
        long asked = 0;
        for (TracePod p : arrivals) {
            asked += p.ask().totalMilli();
            if (100.0 * asked / capacity > cutPct) {
                break;
            }
            out.add(p);
        }
        return out;
    }
}
