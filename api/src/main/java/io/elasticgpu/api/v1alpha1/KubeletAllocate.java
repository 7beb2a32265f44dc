package io.elasticgpu.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What kubelet's device-plugin {@code Allocate} shows of a pod: for one container, a resource and how many of its
 * devices, and nothing else (no pod, no container name). The node agent finds the container a call is for among the
 * node's pods by that alone, so two pods waiting for admission at once that ask the same count of one advertised
 * resource with different shares (HAMi's {@code nvidia.com/gpu: 1} with different {@code gpumem}, or
 * {@code gpu-core: 30} on one card and on two) are look-alikes: kubelet may admit either first, and the answer,
 * environment and all, may be the other's. The extender binds a pod to a node only when no look-alike waits there.
 */
public final class KubeletAllocate {

    private KubeletAllocate() {}

    /** A container's limits on the resources the node agent advertises, as device counts ({@code units.names()}). */
    public static Map<String, Long> advertised(Container c, PodAsks.Units units) {
        Map<String, Long> out = new HashMap<>();
        Map<String, Quantity> limits =
                c.getResources() == null || c.getResources().getLimits() == null
                        ? Map.of()
                        : c.getResources().getLimits();
        for (String name : units.names()) {
            Quantity q = limits.get(name);
            if (q != null) {
                out.put(name, Quantity.getAmountInBytes(q).longValue());
            }
        }
        return out;
    }

    /**
     * The ask on which kubelet's calls for {@code a} and {@code b} cannot be told apart while their planned shares
     * differ in size (compute or memory per card, or how many cards), e.g. {@code "nvidia.com/gpu: 1"}; empty when
     * every call of one names a count the other does not ask, or the same shares (then a wrong guess only swaps
     * equal shares between cards, which the agent records afterwards).
     */
    public static Optional<String> lookalike(Pod a, PodGrant planA, Pod b, PodGrant planB, PodAsks.Units units) {
        for (Container ca : PodAsks.containers(a)) {
            for (Container cb : PodAsks.containers(b)) {
                Optional<String> same = sameAsk(advertised(ca, units), advertised(cb, units));
                if (same.isPresent() && !sizes(planA, ca).equals(sizes(planB, cb))) {
                    return same;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> sameAsk(Map<String, Long> a, Map<String, Long> b) {
        return a.entrySet().stream()
                .filter(e -> e.getValue() > 0 && e.getValue().equals(b.get(e.getKey())))
                .map(e -> e.getKey() + ": " + e.getValue())
                .sorted()
                .findFirst();
    }

    /** The sizes of a container's shares, card by card, in a fixed order: what its environment carries. */
    private static List<List<Long>> sizes(PodGrant plan, Container c) {
        return plan.containers().getOrDefault(c.getName(), List.of()).stream()
                .map(s -> List.of((long) s.milli(), s.memoryMib()))
                .sorted(Comparator.<List<Long>, Long>comparing(l -> l.get(0)).thenComparing(l -> l.get(1)))
                .toList();
    }
}
