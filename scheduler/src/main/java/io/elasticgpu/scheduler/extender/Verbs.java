package io.elasticgpu.scheduler.extender;

import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.http.BadRequest;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.elasticgpu.scheduler.cache.Hold;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.Snapshot;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.decision.Filtered;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.elasticgpu.scheduler.requeue.Requeue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/** The four verbs: decode what kube-scheduler sent, ask the decisions or the binder, encode the answer. */
final class Verbs implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Verbs.class);

    /** One fixed sentence (kube-scheduler counts equal reasons), naming where the pod is found. */
    static final String UNKNOWN_HOLDER =
            "Elastic GPU: a pod here holds cards without a readable allocation" + " (egpu inspect names it)";

    private final ClusterCache cache;
    private final Decisions decisions;
    private final Binder binder;
    private final PodAsks.Units units;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier synced;
    private final Requeue requeue;
    private final Deciding deciding;
    private final ModelTable models;
    private final Set<String> warnedUnknownModel = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final PreemptVerb preempt;
    private static final java.util.function.Supplier<DisruptionBudgets> NO_BUDGETS = () -> DisruptionBudgets.NONE;

    /**
     * Whether the filter decides: it passes only the node the policy ranks best and holds the pod's cards there at
     * once, so that the pods kube-scheduler sends next are decided against it, long before the bind lands.
     *
     * @param hold  how long a decision is held without a bind (kube-scheduler chose otherwise or gave up)
     * @param nanos the clock holds lapse on
     */
    record Deciding(boolean decide, Duration hold, LongSupplier nanos) {
        static final Deciding OFF = new Deciding(false, Duration.ZERO, System::nanoTime);

        /** When a decision made now lapses, on {@link #nanos}. */
        long expiry() {
            return nanos.getAsLong() + hold.toNanos();
        }
    }

    Verbs(
            ClusterCache cache,
            Decisions decisions,
            Binder binder,
            PodAsks.Units units,
            ExtenderMetrics metrics,
            BooleanSupplier synced,
            Requeue requeue,
            Deciding deciding) {
        this(cache, decisions, binder, units, metrics, synced, requeue, deciding, ModelTable.shipped(), NO_BUDGETS);
    }

    /**
     * @param models  what asks in TFLOPS are converted with
     * @param budgets the PodDisruptionBudgets as last seen
     */
    Verbs(
            ClusterCache cache,
            Decisions decisions,
            Binder binder,
            PodAsks.Units units,
            ExtenderMetrics metrics,
            BooleanSupplier synced,
            Requeue requeue,
            Deciding deciding,
            ModelTable models,
            java.util.function.Supplier<DisruptionBudgets> budgets) {
        this.models = models;
        this.requeue = requeue;
        this.deciding = deciding;
        this.cache = cache;
        this.decisions = decisions;
        this.binder = binder;
        this.units = units;
        this.metrics = metrics;
        this.synced = synced;
        this.preempt = new PreemptVerb(cache, decisions, units, models, metrics, synced, budgets);
    }

    /** The preempt verb: see {@link PreemptVerb}. */
    Wire.ExtenderPreemptionResult preempt(Wire.ExtenderPreemptionArgs args) {
        return preempt.preempt(args);
    }

    Wire.ExtenderFilterResult filter(Wire.ExtenderArgs args) {
        requireWellFormed(args);
        if (!synced.getAsBoolean()) {
            return Wire.ExtenderFilterResult.error("the extender is still reading the cluster; try again shortly");
        }
        cache.sent(args.pod());
        List<String> names = names(args);
        if (decidedFor(args.pod(), names)) {
            return answer(args, names, Map.of(), Map.of());
        }
        release(args.pod());
        Snapshot snapshot = cache.snapshot();
        PodAsk ask;
        try {
            ask = PodAsk.of(args.pod(), units, snapshot::claim, models);
        } catch (InvalidAskException e) {
            return Wire.ExtenderFilterResult.error(e.getMessage());
        }
        if (ask.viaClaims()) {
            return claimed(args, ask, names, snapshot);
        }
        if (!ask.asksGpu()) {
            return deciding.decide() ? hostOnly(args, ask.hostOnly(), names, snapshot) : passAll(args, names);
        }
        Optional<String> impossible = Decisions.impossible(ask, snapshot.limits());
        if (impossible.isPresent()) {
            return Wire.ExtenderFilterResult.error(impossible.get());
        }
        warnUnknownModels(ask, names, snapshot);
        Filtered filtered = withoutUnknownHolders(decisions.filter(ask, names, snapshot), snapshot);
        filtered.reasons().forEach(metrics::failed);
        if (!filtered.failed().isEmpty() || !filtered.unresolvable().isEmpty()) {
            requeue.rejected();
        }
        if (!deciding.decide()) {
            return answer(args, filtered.fit(), filtered.failed(), filtered.unresolvable());
        }
        List<String> passed = decide(args.pod(), ask, filtered, snapshot);
        return passed.size() == 1
                ? answer(args, passed, Map.of(), Map.of())
                : answer(args, passed, filtered.failed(), filtered.unresolvable());
    }

    /**
     * Warns once per node whose cards are of a model the TFLOPS table does not know, when a pod asks TFLOPS: such
     * cards are not offered to it (their share cannot be worked out).
     */
    private void warnUnknownModels(PodAsk ask, List<String> names, Snapshot snapshot) {
        if (ask.asks().stream().noneMatch(r -> r.computeAsk().asked())) {
            return;
        }
        for (String name : names) {
            var state = snapshot.state(name);
            if (state == null || warnedUnknownModel.contains(name)) {
                continue;
            }
            for (var card : state.node().cards()) {
                if (models.find(card.model()).isEmpty() && warnedUnknownModel.add(name)) {
                    LOG.warn(
                            "node={} model=\"{}\" is not in the TFLOPS model table: its cards are not offered to pods"
                                    + " asking {}; add the model with --model-table (chart: scheduler.modelTable)",
                            name,
                            card.model(),
                            io.elasticgpu.api.v1alpha1.ResourceNames.GPU_TFLOPS);
                    break;
                }
            }
        }
    }

    /**
     * The nodes that pass, as names or as the Node objects kube-scheduler sent, with why the others do not. Once a
     * node is decided the reasons are left out: kube-scheduler drops nodes missing from both lists without a word
     * and reads reasons only for a pod no node passes, and at 1,000 nodes they are some 100 KB per pod to write and
     * parse.
     */
    private static Wire.ExtenderFilterResult answer(
            Wire.ExtenderArgs args, List<String> passed, Map<String, String> failed, Map<String, String> unresolvable) {
        if (args.nodeNames() != null) {
            return new Wire.ExtenderFilterResult(null, passed, failed, unresolvable, "");
        }
        Set<String> fit = new HashSet<>(passed);
        List<Node> kept = args.nodes().getItems().stream()
                .filter(n -> fit.contains(n.getMetadata().getName()))
                .toList();
        return new Wire.ExtenderFilterResult(
                new NodeListBuilder().withItems(kept).build(), null, failed, unresolvable, "");
    }

    List<Wire.HostPriority> prioritize(Wire.ExtenderArgs args) {
        requireWellFormed(args);
        List<String> names = names(args);
        List<Wire.HostPriority> out = new ArrayList<>(names.size());
        PodAsk ask;
        try {
            ask = PodAsk.of(args.pod(), units, models);
        } catch (InvalidAskException e) {
            ask = null;
        }
        if (ask == null || !ask.asksGpu()) {
            names.forEach(n -> out.add(new Wire.HostPriority(n, 0)));
            return out;
        }
        int[] scores = decisions.prioritize(ask, names, cache.snapshot());
        for (int i = 0; i < scores.length; i++) {
            out.add(new Wire.HostPriority(names.get(i), scores[i]));
        }
        return out;
    }

    Wire.ExtenderBindingResult bind(Wire.ExtenderBindingArgs args) {
        if (args.podName() == null || args.podNamespace() == null || args.podUid() == null || args.node() == null) {
            return new Wire.ExtenderBindingResult("PodName, PodNamespace, PodUID and Node are all required");
        }
        Optional<Pod> pod = cache.pod(args.podNamespace(), args.podName(), args.podUid());
        if (pod.isEmpty()) {
            return new Wire.ExtenderBindingResult("pod %s/%s (uid %s) is not known yet; kube-scheduler will retry"
                    .formatted(args.podNamespace(), args.podName(), args.podUid()));
        }
        PodAsk ask;
        try {
            ask = PodAsk.of(pod.get(), units, models);
        } catch (InvalidAskException e) {
            return new Wire.ExtenderBindingResult(e.getMessage());
        }
        return switch (binder.bind(pod.get(), ask, args.node())) {
            case Binder.Outcome.Bound bound -> new Wire.ExtenderBindingResult(null);
            case Binder.Outcome.Failed failed -> new Wire.ExtenderBindingResult(failed.message());
            case Binder.Outcome.Held held -> {
                metrics.held();
                yield new Wire.ExtenderBindingResult(held.message());
            }
        };
    }

    /** The best node alone, its cards held for the pod; all of {@code fit} when the decision cannot be made. */
    private List<String> decide(Pod pod, PodAsk ask, Filtered filtered, Snapshot snapshot) {
        String uid = pod.getMetadata().getUid();
        List<String> fit = filtered.fit();
        if (fit.isEmpty() || uid == null) {
            return fit;
        }
        Optional<Decisions.Decided> decided = decisions.decide(ask, filtered, snapshot);
        Optional<io.elasticgpu.core.model.Node> node = decided.flatMap(d -> snapshot.node(d.node()));
        if (node.isEmpty()) {
            return fit;
        }
        PodGrant allocation = decided.get().assigned().grant(node.get(), ask);
        cache.hold(
                uid,
                PodHolding.of(node.get().name(), ask.totals(), allocation),
                new Hold(allocation, deciding.expiry()));
        return List.of(node.get().name());
    }

    /**
     * A pod without GPUs, sent by a scheduler configured to (the chart's second extender stanza): it goes to the
     * candidates without GPUs when there are any; otherwise the policy chooses among the GPU nodes, as for GPU pods,
     * so that it leaves their CPU and memory where GPU pods will need them (kube-scheduler's own scores would spread
     * it over the emptiest), and the choice is held until kube-scheduler's own bind is seen.
     */
    private Wire.ExtenderFilterResult hostOnly(
            Wire.ExtenderArgs args, PodAsk ask, List<String> names, Snapshot snapshot) {
        warnUnknownModels(ask, names, snapshot);
        Filtered filtered = withoutUnknownHolders(decisions.filter(ask, names, snapshot), snapshot);
        String uid = args.pod().getMetadata().getUid();
        List<String> passed = List.copyOf(filtered.unresolvable().keySet());
        if (passed.isEmpty()) {
            passed = filtered.fit();
            Optional<Decisions.Decided> decided =
                    uid == null || passed.isEmpty() ? Optional.empty() : decisions.decide(ask, filtered, snapshot);
            if (decided.isPresent()) {
                String node = decided.get().node();
                cache.hold(uid, PodHolding.of(node, ask.totals(), null), new Hold(null, deciding.expiry()));
                passed = List.of(node);
            }
        }
        return answer(args, passed, passed.size() == 1 ? Map.of() : filtered.failed(), Map.of());
    }

    /**
     * A pod whose cards come through ResourceClaims, sent by the chart's second (host) stanza: kube-scheduler's DRA
     * plugin has already kept only the nodes whose devices can satisfy its claims, and its allocator will pick the
     * cards. We choose the node, fragmentation-aware as for any GPU pod, and hold the cards the policy would take
     * there until the claims are seen allocated. Where our view finds no node the allocator's view is the one that
     * counts: every candidate passes.
     */
    private Wire.ExtenderFilterResult claimed(
            Wire.ExtenderArgs args, PodAsk ask, List<String> names, Snapshot snapshot) {
        if (!deciding.decide()) {
            return passAll(args, names);
        }
        warnUnknownModels(ask, names, snapshot);
        Filtered filtered = withoutUnknownHolders(decisions.filter(ask, names, snapshot), snapshot);
        filtered.reasons().forEach(metrics::failed);
        List<String> passed = decide(args.pod(), ask, filtered, snapshot);
        return passed.size() == 1 ? answer(args, passed, Map.of(), Map.of()) : passAll(args, names);
    }

    /**
     * Whether the filter decided this pod moments ago for the one node kube-scheduler now sends: the chart's second
     * (host) stanza calls the filter again, in the same scheduling cycle, with the node the first passed. The decision
     * stands as held. Deciding again would let go of the hold and take it back, which tells the pods kube-scheduler
     * turned away that something was freed when nothing was: a node annotation each, and their retries.
     */
    private boolean decidedFor(Pod pod, List<String> names) {
        String uid = pod.getMetadata().getUid();
        if (!deciding.decide() || uid == null || names.size() != 1) {
            return false;
        }
        long now = deciding.nanos().getAsLong();
        return cache.snapshot()
                .held(uid)
                .filter(h -> h.allocation() != null
                        && h.allocation().node().equals(names.getFirst())
                        && h.expiresAtNanos() - now > 0)
                .isPresent();
    }

    /** A pod decided again lets go of its earlier hold first; holds nobody bound in time lapse. */
    private void release(Pod pod) {
        if (deciding.decide()) {
            cache.expireHolds(deciding.nanos().getAsLong());
            if (pod.getMetadata().getUid() != null) {
                cache.release(pod.getMetadata().getUid());
            }
        }
    }

    @Override
    public void close() {
        requeue.close();
    }

    /**
     * What kube-scheduler always sends: a Pod with a name, and the candidate nodes as NodeNames (nodeCacheCapable) or
     * Nodes, each named. Anything else is a caller's mistake, answered 400 before any state is touched.
     */
    static void requireWellFormed(Wire.ExtenderArgs args) {
        Pod pod = args.pod();
        if (pod == null || pod.getMetadata() == null || pod.getMetadata().getName() == null || pod.getSpec() == null) {
            throw new BadRequest("the request must carry \"Pod\" with metadata.name and a spec");
        }
        if (args.nodeNames() == null && (args.nodes() == null || args.nodes().getItems() == null)) {
            throw new BadRequest("the request must list the candidate nodes as \"NodeNames\" or \"Nodes\"");
        }
        boolean unnamed = args.nodeNames() != null
                ? args.nodeNames().stream().anyMatch(n -> n == null || n.isEmpty())
                : args.nodes().getItems().stream()
                        .anyMatch(n -> n == null
                                || n.getMetadata() == null
                                || n.getMetadata().getName() == null);
        if (unnamed) {
            throw new BadRequest("every candidate node must have a name");
        }
    }

    private static Wire.ExtenderFilterResult passAll(Wire.ExtenderArgs args, List<String> names) {
        return args.nodeNames() != null
                ? new Wire.ExtenderFilterResult(null, names, Map.of(), Map.of(), "")
                : new Wire.ExtenderFilterResult(args.nodes(), null, Map.of(), Map.of(), "");
    }

    /**
     * The filter's answer with the nodes where a bound GPU pod's cards are unknown moved from fit to failed: which
     * cards it uses, nobody can tell, so none of them is handed out until its allocation is readable or it is gone.
     */
    private static Filtered withoutUnknownHolders(Filtered f, Snapshot snapshot) {
        return snapshot.hasUnknownHolders()
                ? f.without(n -> snapshot.unknownHolder(n).isPresent(), UNKNOWN_HOLDER, "unknown_holder")
                : f;
    }

    private static List<String> names(Wire.ExtenderArgs args) {
        if (args.nodeNames() != null) {
            return args.nodeNames();
        }
        NodeList nodes = args.nodes();
        return nodes == null || nodes.getItems() == null
                ? List.of()
                : nodes.getItems().stream().map(n -> n.getMetadata().getName()).toList();
    }
}
