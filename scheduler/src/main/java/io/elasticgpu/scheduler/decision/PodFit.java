package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.placement.Placer;
import io.elasticgpu.core.policy.Choice;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.core.snapshot.Fit;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cards for every container of a pod on one node: each ask in turn, on the node as the previous ones left it,
 * the policy choosing the cards. Either every container fits or the pod does not.
 */
public sealed interface PodFit {

    /** Each ask's grant, in ask order, and the node after them. */
    record Fits(List<Grant> placements, NodeState after) implements PodFit {
        public Fits {
            placements = List.copyOf(placements);
        }

        /** The grant of every container of {@code ask}, as the allocation annotation records it. */
        public PodGrant grant(Node node, PodAsk ask) {
            Map<String, List<PodGrant.Share>> containers = new LinkedHashMap<>();
            for (int i = 0; i < placements.size(); i++) {
                var compute = placements.get(i).ask().computeAsk();
                containers.put(
                        ask.containerAsks().get(i).container(),
                        placements.get(i).shares().stream()
                                .map(s -> new PodGrant.Share(
                                        s.card(),
                                        node.cards().get(s.card()).id(),
                                        s.milli(),
                                        s.memoryMib(),
                                        compute.asked() ? compute.tflops() : null,
                                        compute.asked() ? compute.precision().label() : null,
                                        compute.asked()
                                                ? compute.givenOn(node.cards()
                                                        .get(s.card())
                                                        .model())
                                                : null))
                                .toList());
            }
            return new PodGrant(node.name(), containers);
        }
    }

    /**
     * Why not, in words a person can act on.
     *
     * @param detail what is missing, without the node's name
     */
    record Refused(Reason reason, String node, String detail) implements PodFit {
        /** {@code node <name>: <detail>}. */
        public String message() {
            return "node " + node + ": " + detail;
        }
    }

    static PodFit of(List<Ask> asks, NodeState node, Policy policy) {
        NodeState state = node;
        List<Grant> placements = new ArrayList<>();
        for (Ask ask : asks) {
            if (state.explain(ask) instanceof Fit.DoesNotFit no) {
                return new Refused(
                        no.reason(),
                        no.node(),
                        asks.size() > 1 && !placements.isEmpty()
                                ? no.detail() + " (after placing the pod's other containers)"
                                : no.detail());
            }
            Choice choice = policy.choose(ask, state);
            Grant p = Placer.placement(ask, state, choice.cards());
            placements.add(p);
            state = state.with(p);
        }
        return new Fits(placements, state);
    }

    /**
     * Why the asks do not fit on the node, or {@link Reason#FITS}. One container is checked without building the
     * message that says what is missing (the filter asks this of every node for every pod); several are placed one
     * after the other, as the bind would.
     */
    static Reason reason(List<Ask> asks, NodeState node, Policy policy) {
        if (asks.size() == 1) {
            return node.check(asks.getFirst());
        }
        return of(asks, node, policy) instanceof Refused r ? r.reason() : Reason.FITS;
    }
}
