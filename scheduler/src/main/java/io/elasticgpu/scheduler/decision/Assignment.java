package io.elasticgpu.scheduler.decision;

import io.elasticgpu.api.v1alpha1.Allocation;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.model.Placement;
import io.elasticgpu.core.model.Request;
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
 * Cards for every container of a pod on one node: each request in turn, on the node as the previous ones left it,
 * the policy choosing the cards. Either every container fits or the pod does not.
 */
public sealed interface Assignment {

    /** Each request's placement, in request order, and the node after them. */
    record Assigned(List<Placement> placements, NodeState after) implements Assignment {
        public Assigned {
            placements = List.copyOf(placements);
        }

        /** The cards of every container of {@code ask}, as the allocation annotation records them. */
        public Allocation allocation(Node node, PodAsk ask) {
            Map<String, List<Allocation.Share>> containers = new LinkedHashMap<>();
            for (int i = 0; i < placements.size(); i++) {
                containers.put(ask.asks().get(i).container(), placements.get(i).shares().stream()
                        .map(s -> new Allocation.Share(s.card(), node.cards().get(s.card()).id(), s.milli(), s.memoryMib()))
                        .toList());
            }
            return new Allocation(node.name(), containers);
        }
    }

    /**
     * Why not, in words a person can act on.
     *
     * @param detail what is missing, without the node's name
     */
    record Refused(Reason reason, String node, String detail) implements Assignment {
        /** {@code node <name>: <detail>}. */
        public String message() {
            return "node " + node + ": " + detail;
        }
    }

    static Assignment of(List<Request> requests, NodeState node, Policy policy) {
        NodeState state = node;
        List<Placement> placements = new ArrayList<>();
        for (Request r : requests) {
            if (state.explain(r) instanceof Fit.DoesNotFit no) {
                return new Refused(no.reason(), no.node(), requests.size() > 1 && !placements.isEmpty()
                        ? no.detail() + " (after placing the pod's other containers)" : no.detail());
            }
            Choice choice = policy.choose(r, state);
            Placement p = Placer.placement(r, state, choice.cards());
            placements.add(p);
            state = state.with(p);
        }
        return new Assigned(placements, state);
    }

    /**
     * Why the requests do not fit on the node, or {@link Reason#FITS}. One container is checked without building the
     * message that says what is missing (the filter asks this of every node for every pod); several are placed one
     * after the other, as the bind would.
     */
    static Reason reason(List<Request> requests, NodeState node, Policy policy) {
        if (requests.size() == 1) {
            return node.check(requests.getFirst());
        }
        return of(requests, node, policy) instanceof Refused r ? r.reason() : Reason.FITS;
    }
}
