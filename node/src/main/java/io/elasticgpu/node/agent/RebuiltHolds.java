package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.ContainerKey;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The event a starting agent of the device plugin path posts on its node: which containers kubelet's records and the
 * API show holding cards, counted against those cards before the agent answers kubelet. The agent keeps no state on
 * disk in that path, so this is all it rebuilt.
 */
final class RebuiltHolds {

    /** The event's reason. */
    static final String REASON = "HoldsRebuilt";
    /** Containers named in one event, so that its message stays short on a node with many. */
    static final int NAMED = 20;

    private RebuiltHolds() {}

    /** The event's message; {@code held} as {@link io.elasticgpu.node.allocation.PlanAllocator#held} answers. Pure. */
    static String message(Map<ContainerKey, List<Share>> held) {
        String named = held.entrySet().stream()
                .limit(NAMED)
                .map(e -> e.getKey() + ": "
                        + e.getValue().stream().map(RebuiltHolds::share).collect(Collectors.joining(", ")))
                .collect(Collectors.joining("; "));
        String more = held.size() > NAMED ? "; and %d more".formatted(held.size() - NAMED) : "";
        return ("started with no state of its own: kubelet's records and the API show %d container%s holding cards of"
                        + " this node, counted against them before any new answer: %s%s")
                .formatted(held.size(), held.size() == 1 ? "" : "s", named, more);
    }

    private static String share(Share s) {
        return "card %d (%d MiB, %s %%)".formatted(s.card(), s.memoryMib(), percent(s.milli()));
    }

    private static String percent(int milli) {
        return milli % 10 == 0 ? Integer.toString(milli / 10) : "%.1f".formatted(milli / 10.0);
    }
}
