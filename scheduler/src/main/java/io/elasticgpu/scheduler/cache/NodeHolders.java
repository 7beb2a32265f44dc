package io.elasticgpu.scheduler.cache;

import io.elasticgpu.core.snapshot.NodeState;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One node as preemption weighs it: its state, and each pod counted in that state with what it holds there, taken
 * together under the cache's lock (the state is exactly the node's cards with every one of them counted, so taking
 * some of them out leaves what the node would be without them). DRA claims are not here: they are no pods. Immutable.
 *
 * @param pods      the pods counted on the node, by uid
 * @param elsewhere of the uids asked about and not counted here, those counted on another node, with that node
 */
public record NodeHolders(NodeState state, Map<String, Resident> pods, Map<String, String> elsewhere) {

    public NodeHolders {
        pods = Map.copyOf(pods);
        elsewhere = Map.copyOf(elsewhere);
    }

    /**
     * {@code node} as the cache's parts hold it now, and the node each of {@code uids} not counted there is counted
     * on; null when the node has no cards. Called under the cache's lock.
     */
    static NodeHolders of(
            String node, Nodes nodes, Pods pods, Map<String, Hold> holds, RecentPods sent, Set<String> uids) {
        Snapshot.Entry e = nodes.entries().get(node);
        if (e == null) {
            return null;
        }
        Map<String, Resident> here = new HashMap<>();
        nodes.counted(node).forEach((uid, holding) -> {
            Pod pod = pods.object(uid);
            here.put(
                    uid,
                    new Resident(uid, holding, pod != null ? pod : sent.get(uid).orElse(null), holds.containsKey(uid)));
        });
        Map<String, String> elsewhere = new HashMap<>();
        for (String uid : uids) {
            if (!here.containsKey(uid)) {
                nodes.countedOn(uid).ifPresent(n -> elsewhere.put(uid, n));
            }
        }
        return new NodeHolders(e.state(), here, elsewhere);
    }

    /**
     * A pod counted on the node.
     *
     * @param holding what it holds there: its CPU and memory, and its cards' shares when it holds any
     * @param pod     the pod as last seen (by the informer, or as kube-scheduler sent it); null when this replica
     *                has no copy of it
     * @param held    whether it is counted only for a filter's decision (a pending pod kube-scheduler has not bound
     *                and does not count on the node): no victim, since kube-scheduler cannot evict what it does not
     *                see there
     */
    public record Resident(String uid, PodHolding holding, Pod pod, boolean held) {

        /** Whether it holds a share of any card. */
        public boolean holdsCards() {
            return holding.placements().stream().anyMatch(g -> !g.shares().isEmpty());
        }

        /** Its priority as kube-scheduler reads it ({@code spec.priority}, 0 when unset or unknown). */
        public int priority() {
            Integer p =
                    pod == null || pod.getSpec() == null ? null : pod.getSpec().getPriority();
            return p == null ? 0 : p;
        }

        /** The pod's object, where this replica has one. */
        public Optional<Pod> object() {
            return Optional.ofNullable(pod);
        }
    }

    /** The pods counted on the node, in no particular order. */
    public List<Resident> residents() {
        return List.copyOf(pods.values());
    }
}
