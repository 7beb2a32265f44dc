package io.elasticgpu.node.allocation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds the container an {@code Allocate} call is for. kubelet's request carries only device ids, so the agent
 * reasons from what kubelet has already handed out (its pod-resources API): kubelet admits one pod at a time and
 * allocates its containers in order, resource by resource, and records each before the next call. So a pod that
 * already holds some of our devices and still lacks this one is the pod being admitted (certain). Otherwise the
 * call is for a pod that holds nothing yet; among several with the same ask the oldest by assume time is taken
 * (deterministic) and the others are returned, so that the truth learnt afterwards can be recorded. Pure.
 */
public final class Matcher {

    private Matcher() {}

    /**
     * @param resource the resource kubelet is allocating
     * @param count    how many of its devices
     * @param pods     the pods bound to this node
     * @param served   which containers already hold which resources, from kubelet and from calls in flight
     */
    public static Optional<Match> match(String resource, int count, List<NodePod> pods, Served served) {
        List<Match.Others> started = new ArrayList<>();
        List<Match.Others> fresh = new ArrayList<>();
        for (NodePod pod : pods) {
            NodePod.Container c = firstWaiting(pod, resource, count, served);
            if (c == null) {
                continue;
            }
            (served.anyHeldBy(pod) ? started : fresh).add(new Match.Others(pod, c));
        }
        if (started.size() == 1) {
            Match.Others m = started.getFirst();
            return Optional.of(new Match(m.pod(), m.container(), true, List.of()));
        }
        List<Match.Others> pool = started.isEmpty() ? fresh : started;
        if (pool.isEmpty()) {
            return Optional.empty();
        }
        pool.sort(OLDEST_FIRST);
        Match.Others first = pool.getFirst();
        return Optional.of(new Match(first.pod(), first.container(), pool.size() == 1, pool.subList(1, pool.size())));
    }

    private static final Comparator<Match.Others> OLDEST_FIRST = Comparator.comparingLong(
                    (Match.Others o) -> o.pod().assumeTime())
            .thenComparing(o -> o.pod().namespace())
            .thenComparing(o -> o.pod().name());

    /** The first container, in kubelet's order, that asks exactly {@code count} of {@code resource} and lacks it. */
    private static NodePod.Container firstWaiting(NodePod pod, String resource, int count, Served served) {
        for (NodePod.Container c : pod.containers()) {
            if (c.asks(resource) == count && !served.holds(pod.key(c), resource)) {
                return c;
            }
        }
        return null;
    }
}
