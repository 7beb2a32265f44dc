package io.elasticgpu.simulator.replay;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.placement.Decision;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Fragmentation;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TraceFormatException;
import io.elasticgpu.simulator.trace.TracePod;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run recorded by another simulator, event by event ({@code idx,pod,result_node,...} where {@code result_node}
 * is {@code NNNN-<node>} with its priority, or {@code FAILED}), replayed with its own pod order and node priority
 * to count the events where our decision is the recorded one. After a differing event the recorded decision is
 * applied, so that one difference is counted once and does not cascade.
 */
public final class RecordedRun {

    private static final Pattern PRIORITY = Pattern.compile("(\\d{4})-(.+)");
    private static final Pattern CLONE = Pattern.compile("(.+)-tuned-\\d+");
    private static final String FAILED = "FAILED";

    /** One recorded event: the pod (clones by their trace name) and the node it went to, or empty. */
    public record Event(String pod, java.util.Optional<String> node, long usedMilli, double fragmentationMilli) {}

    /**
     * The comparison: events compared, events where the decision matched, the first difference if any, and the
     * replay's event log.
     */
    public record Comparison(int events, int matching, String firstDifference, EventLog log) {}

    private final Path file;
    private final List<Event> events;
    private final Map<String, Integer> priority;

    private RecordedRun(Path file, List<Event> events, Map<String, Integer> priority) {
        this.file = file;
        this.events = events;
        this.priority = priority;
    }

    public static RecordedRun read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read events file " + file + ": " + e.getMessage(), e);
        }
        if (lines.isEmpty() || !lines.getFirst().startsWith("idx,pod,result_node")) {
            throw new TraceFormatException(file, "expected a header starting idx,pod,result_node");
        }
        List<Event> events = new ArrayList<>();
        Map<String, Integer> priority = new HashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] cells = lines.get(i).split(",", -1);
            if (cells.length < 6) {
                throw new TraceFormatException(file, i + 1, "*", "expected 6 cells, found " + cells.length);
            }
            String result = cells[2];
            java.util.Optional<String> node = java.util.Optional.empty();
            if (!result.equals(FAILED)) {
                Matcher m = PRIORITY.matcher(result);
                if (!m.matches()) {
                    throw new TraceFormatException(
                            file,
                            i + 1,
                            "result_node",
                            "expected NNNN-<node> or FAILED, found \"%s\"".formatted(result));
                }
                node = java.util.Optional.of(m.group(2));
                priority.put(m.group(2), Integer.parseInt(m.group(1)));
            }
            events.add(new Event(
                    cells[1], node, parse(file, i, "used_gpu_milli", cells[4]), Double.parseDouble(cells[5])));
        }
        return new RecordedRun(file, List.copyOf(events), priority);
    }

    private static long parse(Path file, int line, String column, String cell) {
        try {
            return Long.parseLong(cell);
        } catch (NumberFormatException e) {
            throw new TraceFormatException(
                    file, line + 1, column, "expected a whole number, found \"%s\"".formatted(cell));
        }
    }

    public List<Event> events() {
        return events;
    }

    /** The trace's nodes in the recorded priority order. */
    public List<Node> nodesInPriorityOrder(Trace trace) {
        for (Node node : trace.nodes()) {
            if (!priority.containsKey(node.name())) {
                throw new TraceFormatException(
                        file, "node %s of the trace never appears, so its priority is unknown".formatted(node.name()));
            }
        }
        return trace.nodes().stream()
                .sorted(Comparator.comparingInt(n -> priority.get(n.name())))
                .toList();
    }

    /** The recorded pod order, each pod looked up in the trace (clones by the name they were cloned from). */
    public List<TracePod> arrivals(Trace trace) {
        Map<String, TracePod> byName = new HashMap<>();
        trace.pods().forEach(p -> byName.put(p.name(), p));
        Function<String, TracePod> lookup = name -> {
            Matcher clone = CLONE.matcher(name);
            TracePod pod = byName.get(clone.matches() ? clone.group(1) : name);
            if (pod == null) {
                throw new TraceFormatException(file, "pod %s is not in trace %s".formatted(name, trace.name()));
            }
            return pod.renamed(name);
        };
        return events.stream().map(Event::pod).map(lookup).toList();
    }

    /** Replays the recorded order with {@code policy} and counts matching decisions. */
    public Comparison compare(Trace trace, Policy policy, Fragmentation metric) {
        List<TracePod> arrivals = arrivals(trace);
        Replay replay = new Replay(nodesInPriorityOrder(trace), policy, metric);
        Placer placer = replay.placer();
        EventLog log = new EventLog(replay.cluster().capacityMilli(), arrivals.size());
        int matching = 0;
        String firstDifference = null;
        for (int i = 0; i < arrivals.size(); i++) {
            TracePod pod = arrivals.get(i);
            Decision ours = placer.place(pod.ask(), replay.cluster());
            java.util.Optional<String> oursNode = ours instanceof Decision.Placed p
                    ? java.util.Optional.of(p.placement().node())
                    : java.util.Optional.empty();
            java.util.Optional<String> recorded = events.get(i).node();
            if (oursNode.equals(recorded)) {
                matching++;
                replay.record(log, pod, ours instanceof Decision.Placed p ? p.placement() : null);
                continue;
            }
            if (firstDifference == null) {
                firstDifference = "event %d (%s): recorded %s, ours %s"
                        .formatted(i, pod.name(), recorded.orElse(FAILED), oursNode.orElse(FAILED));
            }
            replay.record(
                    log,
                    pod,
                    recorded.map(n -> forced(policy, pod.ask(), replay, n)).orElse(null));
        }
        return new Comparison(arrivals.size(), matching, Objects.requireNonNullElse(firstDifference, "none"), log);
    }

    /** The placement on the recorded node, with the cards our policy would take there; none if it does not fit. */
    private static Grant forced(Policy policy, Ask ask, Replay replay, String node) {
        NodeState state = replay.cluster().node(node);
        if (state.check(ask) != Reason.FITS) {
            return null;
        }
        Choice choice = policy.choose(ask, state);
        return Placer.placement(ask, state, choice.cards());
    }
}
