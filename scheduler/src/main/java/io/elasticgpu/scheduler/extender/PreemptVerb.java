package io.elasticgpu.scheduler.extender;

import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.http.BadRequest;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.elasticgpu.scheduler.cache.NodeHolders;
import io.elasticgpu.scheduler.cache.Snapshot;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.elasticgpu.scheduler.decision.Preemption;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The preempt verb ({@code preemptVerb}): for each candidate node kube-scheduler sends, the pods whose eviction lets
 * the preemptor fit on one card (or the cards it asks) by {@link Preemption}, or the node left out of the answer
 * when no set does. It only answers: kube-scheduler evicts the victims of the node it then picks, and nothing here
 * changes the cache or the cluster.
 *
 * <p>Decodes, checks, asks {@link Preemption}, encodes. A request kube-scheduler would never send is refused with a
 * 4xx naming what is wrong, before anything is weighed: no {@code Pod} or one without name, uid or spec, neither
 * victims map, an unnamed node or a victim without a uid (400); a node it has no cards of, a victim it does not count
 * on any node (404); a victim it counts on another node, or a preemptor whose asks cannot be read (422); a request
 * before the caches are read (409: kube-scheduler tries again at its next cycle). Each refusal is logged at warn. The
 * preemptor need not be known yet: kube-scheduler sends it whole, and often before the informer shows it (its own
 * filters refuse it before the extender's filter sees it).
 */
final class PreemptVerb {

    private static final Logger LOG = LoggerFactory.getLogger(PreemptVerb.class);

    private final ClusterCache cache;
    private final Decisions decisions;
    private final Preemption preemption;
    private final PodAsks.Units units;
    private final ModelTable models;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier synced;
    private final Supplier<DisruptionBudgets> budgets;

    PreemptVerb(
            ClusterCache cache,
            Decisions decisions,
            PodAsks.Units units,
            ModelTable models,
            ExtenderMetrics metrics,
            BooleanSupplier synced,
            Supplier<DisruptionBudgets> budgets) {
        this.budgets = budgets;
        this.cache = cache;
        this.decisions = decisions;
        this.preemption = new Preemption(decisions::policy);
        this.units = units;
        this.models = models;
        this.metrics = metrics;
        this.synced = synced;
    }

    Wire.ExtenderPreemptionResult preempt(Wire.ExtenderPreemptionArgs args) {
        try {
            return answer(args);
        } catch (BadRequest e) {
            LOG.warn("preempt refused ({}): {}", e.status(), e.getMessage());
            throw e;
        }
    }

    private Wire.ExtenderPreemptionResult answer(Wire.ExtenderPreemptionArgs args) {
        Map<String, Wire.MetaVictims> proposed = proposed(args);
        if (!synced.getAsBoolean()) {
            throw new BadRequest(409, "the extender is still reading the cluster; try again shortly");
        }
        Pod pod = args.pod();
        String uid = pod.getMetadata().getUid();
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        Map<String, NodeHolders> nodes = known(proposed);
        PodAsk ask;
        Snapshot snapshot = cache.snapshot();
        try {
            ask = PodAsk.of(pod, units, snapshot::claim, models);
        } catch (InvalidAskException e) {
            throw new BadRequest(422, "preemptor pod %s/%s: %s".formatted(namespace, name, e.getMessage()));
        }
        Map<String, Wire.MetaVictims> answer = new TreeMap<>();
        if (!ask.asksGpu() || ask.viaClaims()) {
            // Not ours to judge: a pod asking no card of ours, or one whose cards kube-scheduler's DRA allocator picks.
            proposed.forEach((node, victims) -> {
                answer.put(node, victims);
                metrics.preempted("as_proposed", victims.pods().size());
            });
            return new Wire.ExtenderPreemptionResult(answer);
        }
        if (Decisions.impossible(ask, snapshot.limits()).isPresent()) {
            proposed.keySet().forEach(node -> metrics.preempted("dropped", 0));
            return new Wire.ExtenderPreemptionResult(answer);
        }
        int priority = priority(pod);
        DisruptionBudgets budgets = this.budgets.get();
        for (Map.Entry<String, Wire.MetaVictims> e : proposed.entrySet()) {
            String node = e.getKey();
            Set<String> uids = uids(e.getValue());
            Optional<String> unknownHolder = snapshot.unknownHolder(node);
            Preemption.Chosen outcome = unknownHolder.isPresent()
                    ? new Preemption.Chosen.NoSet("pod " + unknownHolder.get() + " holds cards nobody can name")
                    : preemption.choose(
                            new Preemption.Question(ask.asks(), uid, priority, nodes.get(node), uids, budgets));
            switch (outcome) {
                case Preemption.Chosen.Evict evict -> {
                    answer.put(
                            node,
                            new Wire.MetaVictims(
                                    evict.victims().stream()
                                            .map(Wire.MetaPod::new)
                                            .toList(),
                                    evict.pdbViolations()));
                    metrics.preempted("victims", evict.victims().size());
                    LOG.info(
                            "preempt pod={}/{} node={}: victims {} ({} against a disruption budget); kube-scheduler"
                                    + " proposed {}",
                            namespace,
                            name,
                            node,
                            evict.victims(),
                            evict.pdbViolations(),
                            uids);
                }
                case Preemption.Chosen.AsProposed same -> {
                    answer.put(node, e.getValue());
                    metrics.preempted("as_proposed", uids.size());
                    LOG.info(
                            "preempt pod={}/{} node={}: fits the cards already; kube-scheduler's victims {} stand",
                            namespace,
                            name,
                            node,
                            uids);
                }
                case Preemption.Chosen.NoSet none -> {
                    metrics.preempted("dropped", 0);
                    LOG.info("preempt pod={}/{} node={} dropped: {}", namespace, name, node, none.reason());
                }
            }
        }
        return new Wire.ExtenderPreemptionResult(answer);
    }

    /**
     * Each candidate node's proposed victims by uid, from whichever map kube-scheduler sent; a request it would never
     * send is refused with 400.
     */
    private static Map<String, Wire.MetaVictims> proposed(Wire.ExtenderPreemptionArgs args) {
        Pod pod = args.pod();
        if (pod == null
                || pod.getMetadata() == null
                || pod.getMetadata().getName() == null
                || pod.getMetadata().getUid() == null
                || pod.getMetadata().getUid().isEmpty()
                || pod.getSpec() == null) {
            throw new BadRequest("the preempt request must carry \"Pod\" with metadata.name, metadata.uid and a spec");
        }
        Map<String, Wire.MetaVictims> out = new LinkedHashMap<>();
        if (args.nodeNameToMetaVictims() != null) {
            args.nodeNameToMetaVictims().forEach((node, victims) -> {
                requireNode(node, victims == null || victims.pods() == null);
                for (Wire.MetaPod p : victims.pods()) {
                    if (p == null || p.uid() == null || p.uid().isEmpty()) {
                        throw new BadRequest("every victim on node %s must have a \"UID\"".formatted(node));
                    }
                }
                out.put(node, victims);
            });
        } else if (args.nodeNameToVictims() != null) {
            args.nodeNameToVictims().forEach((node, victims) -> {
                requireNode(node, victims == null || victims.pods() == null);
                List<Wire.MetaPod> uids = victims.pods().stream()
                        .map(p -> {
                            if (p == null
                                    || p.getMetadata() == null
                                    || p.getMetadata().getUid() == null
                                    || p.getMetadata().getUid().isEmpty()) {
                                throw new BadRequest("every victim on node %s must have metadata.uid".formatted(node));
                            }
                            return new Wire.MetaPod(p.getMetadata().getUid());
                        })
                        .toList();
                out.put(node, new Wire.MetaVictims(uids, victims.numPdbViolations()));
            });
        } else {
            throw new BadRequest(
                    "the preempt request must give the candidate nodes' victims as \"NodeNameToMetaVictims\" or"
                            + " \"NodeNameToVictims\"");
        }
        return out;
    }

    private static void requireNode(String node, boolean noPods) {
        if (node == null || node.isEmpty()) {
            throw new BadRequest("every candidate node must have a name");
        }
        if (noPods) {
            throw new BadRequest("node %s: its victims must be given as \"Pods\"".formatted(node));
        }
    }

    /**
     * Each node as this replica counts it; a node it has no cards of (404), a victim it does not know (404) or counts
     * on another node (422) is refused, naming it.
     */
    private Map<String, NodeHolders> known(Map<String, Wire.MetaVictims> proposed) {
        Map<String, NodeHolders> out = new LinkedHashMap<>();
        for (Map.Entry<String, Wire.MetaVictims> e : proposed.entrySet()) {
            String node = e.getKey();
            NodeHolders holders = cache.holders(node, uids(e.getValue()));
            if (holders == null) {
                throw new BadRequest(
                        404,
                        "node %s: the extender knows no Elastic GPU cards there (no readable elasticgpu.io/inventory)"
                                .formatted(node));
            }
            for (String victim : uids(e.getValue())) {
                if (holders.pods().containsKey(victim)) {
                    continue;
                }
                String elsewhere = holders.elsewhere().get(victim);
                if (elsewhere != null) {
                    throw new BadRequest(
                            422, "victim pod uid %s is on node %s, not on node %s".formatted(victim, elsewhere, node));
                }
                throw new BadRequest(
                        404, "victim pod uid %s is not a pod the extender counts on node %s".formatted(victim, node));
            }
            out.put(node, holders);
        }
        return out;
    }

    private static Set<String> uids(Wire.MetaVictims victims) {
        Set<String> out = new HashSet<>();
        victims.pods().forEach(p -> out.add(p.uid()));
        return out;
    }

    /** {@code spec.priority}, as kube-scheduler reads it: 0 when unset. */
    private static int priority(Pod pod) {
        Integer p = pod.getSpec().getPriority();
        return p == null ? 0 : p;
    }
}
