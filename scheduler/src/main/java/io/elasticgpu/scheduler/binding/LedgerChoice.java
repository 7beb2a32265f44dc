package io.elasticgpu.scheduler.binding;

import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.scheduler.cache.Hold;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.PodResources;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.elasticgpu.scheduler.decision.PodFit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's cards on one node, chosen on what the node's ledger leaves free (its reservations, GPU shares only), and
 * why there are none. Thread-safe: no state of its own.
 */
final class LedgerChoice {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerChoice.class);

    private final Supplier<Policy> policy;

    LedgerChoice(Supplier<Policy> policy) {
        this.policy = policy;
    }

    /**
     * The cards the filter held for the pod on this node when they are still free in the ledger (so the bind keeps
     * the decision the next pods were decided against), else the policy's choice on what the ledger leaves free.
     */
    Optional<PodGrant> choose(Node node, Map<String, String> entries, Optional<Hold> held, PodAsk ask) {
        NodeState state = reserved(node, entries);
        Optional<PodGrant> kept =
                held.map(Hold::allocation).filter(a -> a.node().equals(node.name()) && fits(state, node, a));
        if (kept.isPresent()) {
            return kept;
        }
        if (!(PodFit.of(ask.gpuOnly(), state, policy.get()) instanceof PodFit.Fits assigned)) {
            return Optional.empty();
        }
        return Optional.of(assigned.grant(node, ask));
    }

    private static boolean fits(NodeState state, Node node, PodGrant allocation) {
        try {
            state.with(PodHolding.of(node.name(), new PodResources.Totals(0, 0), allocation)
                    .placements());
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Why {@link #choose} found no cards. */
    String refusal(Node node, Map<String, String> entries, PodAsk ask) {
        if (PodFit.of(ask.gpuOnly(), reserved(node, entries), policy.get()) instanceof PodFit.Refused r) {
            return "node %s no longer fits the pod: %s".formatted(node.name(), r.detail());
        }
        return "node %s no longer fits the pod".formatted(node.name());
    }

    /** The node's cards with every reservation of the ledger applied: GPU shares only. */
    private static NodeState reserved(Node node, Map<String, String> entries) {
        NodeState state = NodeState.empty(node);
        Map<String, PodHolding> holdings = new HashMap<>();
        for (var e : entries.entrySet()) {
            PodGrant a = LedgerEntry.fromJson(e.getValue()).allocation();
            holdings.put(e.getKey(), PodHolding.of(node.name(), new PodResources.Totals(0, 0), a));
        }
        for (var c : holdings.entrySet()) {
            try {
                state = state.with(c.getValue().placements());
            } catch (IllegalStateException e) {
                LOG.warn(
                        "node={}: reservation of uid={} no longer fits its cards ({}); it is not counted",
                        node.name(),
                        c.getKey(),
                        e.getMessage());
            }
        }
        return state;
    }
}
