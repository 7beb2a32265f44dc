package io.elasticgpu.bench.cluster;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.PodResources;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The replay's outcome as the API shows it, nothing else: what the bound pods' allocation annotations hold on each
 * card, what their requests take on each node, and which pending pods would fit somewhere now.
 *
 * @param allocatedMilli     GPU held by bound pods, in milli-cards, from their allocation annotations
 * @param podsBound          pods with a node
 * @param podsPending        pods without
 * @param overCommittedCards cards whose holders' shares add up to more than the card (must be 0)
 * @param overCommittedHosts nodes whose pods' CPU or memory requests exceed it
 * @param unaccounted        bound GPU pods without an allocation annotation (must be 0)
 * @param pendingThatFit     pending pods some node could hold as the cluster is now
 */
public record Audit(
        long allocatedMilli,
        int podsBound,
        int podsPending,
        int overCommittedCards,
        int overCommittedHosts,
        int unaccounted,
        int pendingThatFit) {

    /** @param nodes the kwok nodes by name, as the plan made them */
    public static Audit of(List<Pod> pods, Map<String, Node> nodes, List<TracePod> plan) {
        return of(pods, nodes, plan, Audit::annotated);
    }

    /** The same, with what each pod holds read by {@code holds} (its annotation, or its DRA claim's allocation). */
    static Audit of(List<Pod> pods, Map<String, Node> nodes, List<TracePod> plan, Function<Pod, PodGrant> holds) {
        Map<String, int[]> milli = new HashMap<>();
        Map<String, long[]> memory = new HashMap<>();
        Map<String, long[]> host = new HashMap<>();
        long allocated = 0;
        int bound = 0;
        int unaccounted = 0;
        Map<String, NodeState> states = new HashMap<>();
        nodes.forEach((name, node) -> states.put(name, NodeState.empty(node)));
        for (Pod pod : pods) {
            String name = pod.getSpec().getNodeName();
            if (name == null || name.isEmpty()) {
                continue;
            }
            bound++;
            Node node = nodes.get(name);
            PodResources.Totals totals = PodResources.of(pod);
            long[] h = host.computeIfAbsent(name, k -> new long[2]);
            h[0] += totals.cpuMilli();
            h[1] += totals.memoryMib();
            TracePod asked = plan.get(index(pod));
            PodGrant allocation = holds.apply(pod);
            if (asked.ask().needsCards() && allocation == null) {
                unaccounted++;
            }
            if (allocation != null) {
                for (List<PodGrant.Share> shares : allocation.containers().values()) {
                    for (PodGrant.Share s : shares) {
                        milli.computeIfAbsent(name, k -> new int[node.cards().size()])[s.card()] += s.milli();
                        memory.computeIfAbsent(name, k -> new long[node.cards().size()])[s.card()] += s.memoryMib();
                        allocated += s.milli();
                    }
                }
            }
            states.put(
                    name,
                    with(
                            states.get(name),
                            PodHolding.of(node.name(), totals, allocation).placements()));
        }
        int overCards = 0;
        int overHosts = 0;
        for (var e : nodes.entrySet()) {
            List<Card> cards = e.getValue().cards();
            int[] m = milli.getOrDefault(e.getKey(), new int[cards.size()]);
            long[] mem = memory.getOrDefault(e.getKey(), new long[cards.size()]);
            for (int c = 0; c < cards.size(); c++) {
                if (m[c] > cards.get(c).computeMilli()
                        || mem[c] > cards.get(c).memoryMib() && cards.get(c).memoryMib() > 0) {
                    overCards++;
                }
            }
            long[] h = host.getOrDefault(e.getKey(), new long[2]);
            if (h[0] > e.getValue().cpuMilli() || h[1] > e.getValue().memoryMib()) {
                overHosts++;
            }
        }
        int pendingThatFit = 0;
        for (Pod pod : pods) {
            if (pod.getSpec().getNodeName() == null
                    || pod.getSpec().getNodeName().isEmpty()) {
                Ask ask = plan.get(index(pod)).ask();
                if (states.values().stream().anyMatch(s -> s.check(ask) == Reason.FITS)) {
                    pendingThatFit++;
                }
            }
        }
        return new Audit(allocated, bound, pods.size() - bound, overCards, overHosts, unaccounted, pendingThatFit);
    }

    static PodGrant annotated(Pod pod) {
        String json = pod.getMetadata().getAnnotations().get(Annotations.ALLOCATION);
        return json == null ? null : PodGrant.fromJson(json);
    }

    /**
     * The state with {@code placements} counted even past capacity: the audit counts over-commitment, not refuses it.
     * */
    private static NodeState with(NodeState state, List<Grant> placements) {
        try {
            return state.with(placements);
        } catch (IllegalStateException e) {
            return state;
        }
    }

    /** The pod's place in arrival order, as {@link ReplayObjects#pod} wrote it. */
    public static int index(Pod pod) {
        return Integer.parseInt(pod.getMetadata().getAnnotations().get(ReplayObjects.INDEX));
    }
}
