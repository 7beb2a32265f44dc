package io.elasticgpu.scheduler.binding;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.Policy;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.Hold;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.PodPresence;
import io.elasticgpu.scheduler.cache.Snapshot;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds one pod to the node kube-scheduler chose:
 * <ol>
 * <li>reads the node's ledger, drops reservations of pods that are gone or went elsewhere, and checks that the
 *     pod's containers fit on the cards the ledger leaves free (the ledger is the truth every replica shares);</li>
 * <li>reserves the chosen cards by writing the ledger back with the version it read: if another replica wrote
 *     first, starts over from 1;</li>
 * <li>binds the pod with the allocation in its annotations, in one write (a Binding's annotations).</li>
 * </ol>
 * A failure at 3 takes the reservation back. Thread-safe: this replica's writes to one node's ledger (binds, undoing
 * them, tidying) take turns, and binds that arrive while one writes go together in the next ({@link LedgerTurns});
 * writes of other replicas can still come between: then 1 starts over.
 */
public final class Binder {

    private static final Logger LOG = LoggerFactory.getLogger(Binder.class);
    static final int ATTEMPTS = 10;

    /** The result of a bind. */
    public sealed interface Outcome {
        /** Bound with {@code allocation}; null on a DRA node, where the pod's claim holds its cards. */
        record Bound(PodGrant allocation) implements Outcome {}

        record Failed(String message) implements Outcome {}

        /**
         * Not bound yet for a reason that passes by itself (a look-alike waits for kubelet there); kube-scheduler
         * retries. */
        record Held(String message) implements Outcome {}
    }

    /**
     * A bind waiting for its pod's reservation in a node's ledger, with the filter's hold for the pod when it bound. */
    private record Pending(Pod pod, PodAsk ask, Optional<Hold> held) {
        String namespace() {
            return pod.getMetadata().getNamespace();
        }

        String name() {
            return pod.getMetadata().getName();
        }

        String uid() {
            return pod.getMetadata().getUid();
        }
    }

    private final ClusterApi api;
    private final ClusterCache cache;
    private final LedgerChoice choice;
    private final long aliyunUnitMib;
    private final LookalikeGate lookalikes;
    private final InstantSource clock;
    private final Duration staleReservation;
    /** The ledger of each node as this replica last wrote it: the version its next write there goes on. */
    private final Map<String, ClusterApi.Ledger> known = new ConcurrentHashMap<>();

    private final LedgerTurns<Pending, Outcome> turns = new LedgerTurns<>();
    /** Ledger writes made, and those the API server refused because another came first (each a read and a retry). */
    private final LongAdder writes = new LongAdder();

    private final LongAdder conflicts = new LongAdder();

    /**
     * @param staleReservation how old a reservation of a pod that is neither bound nor being bound by this replica
     *                         must be to be dropped as left over from a replica that died mid-bind
     */
    public Binder(
            ClusterApi api,
            ClusterCache cache,
            Supplier<Policy> policy,
            PodAsks.Units units,
            InstantSource clock,
            Duration staleReservation) {
        this.api = requireNonNull(api, "api");
        this.cache = requireNonNull(cache, "cache");
        this.choice = new LedgerChoice(requireNonNull(policy, "policy"));
        this.aliyunUnitMib = units.aliyunUnitMib();
        this.lookalikes = new LookalikeGate(cache::pod, units);
        this.clock = requireNonNull(clock, "clock");
        this.staleReservation = requireNonNull(staleReservation, "staleReservation");
    }

    /** Binds {@code pod} (as kube-scheduler sent it, which the informer may not have shown yet) to {@code nodeName}. */
    public Outcome bind(Pod pod, PodAsk ask, String nodeName) {
        String namespace = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String uid = pod.getMetadata().getUid();
        Optional<String> bound = cache.boundNode(uid);
        if (bound.isPresent() && !bound.get().equals(nodeName)) {
            // an earlier bind kube-scheduler gave up waiting for (its httpTimeout) landed after all
            LOG.warn("pod={}/{} refused on node={}: already bound to node={}", namespace, name, nodeName, bound.get());
            return new Outcome.Failed("pod is already bound to node " + bound.get());
        }
        Snapshot snapshot = cache.snapshot();
        Optional<Node> node = snapshot.node(nodeName);
        if (node.isEmpty()) {
            return new Outcome.Failed("node %s publishes no Elastic GPU inventory".formatted(nodeName));
        }
        if (NodeLabels.dra(node.get().labels())) {
            return bindAsClaimed(namespace, name, uid, nodeName);
        }
        try {
            return reserveAndBind(new Pending(pod, ask, snapshot.held(uid)), node.get());
        } catch (ClusterApi.ApiException e) {
            // The API server unreachable or refusing (a restart, a shutdown): a bind that cannot be made now, which
            // kube-scheduler retries, not a bug. A reservation already written is dropped by the ledger's tidying.
            LOG.warn("pod={}/{} bind to node={} failed: {}", namespace, name, nodeName, e.getMessage());
            return new Outcome.Failed("node %s: %s; kube-scheduler will retry".formatted(nodeName, e.getMessage()));
        }
    }

    private Outcome reserveAndBind(Pending pending, Node node) {
        String namespace = pending.namespace();
        String name = pending.name();
        cache.sent(pending.pod());
        Outcome reserved = turns.join(node.name(), pending, batch -> reserve(node, batch));
        switch (reserved) {
            case Outcome.Bound(PodGrant allocation) -> {
                return annotateAndBind(namespace, name, pending.uid(), pending.ask(), node, allocation);
            }
            case Outcome.Held held ->
                LOG.info("pod={}/{} not bound to node={} yet: {}", namespace, name, node.name(), held.message());
            case Outcome.Failed failed -> LOG.warn("pod={}/{} refused: {}", namespace, name, failed.message());
        }
        return reserved;
    }

    /** Binds waiting for their turn at {@code node}'s ledger (for tests). */
    int waiting(String node) {
        return turns.waiting(node);
    }

    /**
     * Chooses each pod's cards in turn on what the node's ledger leaves free and writes them all in at once: Bound
     * means reserved. Starts over from a fresh read when another writer came first.
     */
    private Map<Pending, Outcome> reserve(Node node, List<Pending> batch) {
        String nodeName = node.name();
        Set<String> uids = new HashSet<>();
        batch.forEach(p -> uids.add(p.uid()));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            ClusterApi.Ledger remembered = attempt == 0 ? known.get(nodeName) : null;
            ClusterApi.Ledger ledger = remembered != null ? remembered : api.readLedger(nodeName);
            Map<String, String> entries = current(ledger.entries(), nodeName, uids);
            if (remembered != null && uids.stream().anyMatch(entries::containsKey)) {
                continue; // a retried bind: whether the reservation still stands, only the ledger itself can say
            }
            Map<Pending, Outcome> outcomes = new IdentityHashMap<>(); // one bind retried while in flight: two requests
            batch.forEach(p -> outcomes.put(p, place(node, entries, p)));
            if (entries.equals(ledger.entries()) || write(nodeName, entries, ledger.version())) {
                return outcomes;
            }
        }
        Outcome failed =
                new Outcome.Failed("node %s: its ledger kept changing under %d attempts; kube-scheduler will retry"
                        .formatted(nodeName, ATTEMPTS));
        Map<Pending, Outcome> outcomes = new IdentityHashMap<>();
        batch.forEach(p -> outcomes.put(p, failed));
        return outcomes;
    }

    /**
     * One pod's cards on what {@code entries} leave free, entered there: Bound means reserved once they are written. */
    private Outcome place(Node node, Map<String, String> entries, Pending pod) {
        String mine = entries.get(pod.uid());
        if (mine != null) {
            return new Outcome.Bound(LedgerEntry.fromJson(mine).allocation()); // an earlier attempt reserved it already
        }
        Optional<PodGrant> fit = choice.choose(node, entries, pod.held(), pod.ask());
        if (fit.isEmpty()) {
            return new Outcome.Failed(choice.refusal(node, entries, pod.ask()));
        }
        Optional<String> wait = lookalikes.wait(node, entries, pod.pod(), fit.get(), clock.millis());
        if (wait.isPresent()) {
            return new Outcome.Held(wait.get());
        }
        entries.put(pod.uid(), new LedgerEntry(pod.namespace() + "/" + pod.name(), clock.millis(), fit.get()).toJson());
        return new Outcome.Bound(fit.get());
    }

    /**
     * A pod asking our extended resource on a node that offers its cards through DRA (KEP-5004): kube-scheduler
     * made and allocated its claim before calling this bind, and the claim is what holds the cards (the node agent
     * prepares it, the views count it). It is bound as it is, with no allocation or ledger entry of ours, which would
     * name cards the allocator may not have chosen and count them twice.
     */
    private Outcome bindAsClaimed(String namespace, String name, String uid, String node) {
        cache.forget(uid);
        try {
            api.bind(namespace, name, uid, node, Map.of());
            return new Outcome.Bound(null);
        } catch (ClusterApi.AlreadyBoundException e) {
            return e.node().equals(node)
                    ? new Outcome.Bound(null)
                    : new Outcome.Failed("pod is already bound to node " + e.node());
        } catch (RuntimeException e) {
            LOG.warn("pod={}/{} bind to DRA node={} failed: {}", namespace, name, node, e.getMessage());
            return new Outcome.Failed("binding to node %s failed: %s".formatted(node, e.getMessage()));
        }
    }

    private Outcome annotateAndBind(
            String namespace, String name, String uid, PodAsk ask, Node node, PodGrant allocation) {
        cache.assume(uid, PodHolding.of(node.name(), ask.totals(), allocation));
        long now = clock.millis() * 1_000_000L;
        Map<String, String> annotations =
                CompatAnnotations.of(allocation, ask.containerAsks(), node, now, aliyunUnitMib);
        try {
            api.bind(namespace, name, uid, node.name(), annotations);
            return new Outcome.Bound(allocation);
        } catch (ClusterApi.AlreadyBoundException e) {
            if (e.node().equals(node.name())) {
                return new Outcome.Bound(allocation); // an earlier attempt of this bind landed, annotations and all
            }
            // an earlier bind kube-scheduler gave up waiting for (its httpTimeout) landed elsewhere with its own
            // annotations, which this one did not touch: only this reservation is to be taken back
            LOG.warn("pod={}/{} bind to node={} found it bound to node={}", namespace, name, node.name(), e.node());
            unreserve(uid, node.name());
            return new Outcome.Failed("pod is already bound to node " + e.node());
        } catch (RuntimeException e) {
            LOG.warn("pod={}/{} bind to node={} failed, undoing: {}", namespace, name, node.name(), e.getMessage());
            unreserve(uid, node.name());
            return new Outcome.Failed("binding to node %s failed: %s".formatted(node.name(), e.getMessage()));
        }
    }

    /**
     * Writes a ledger, remembering it as this replica's latest knowledge of the node: the next bind there writes on
     * that version without reading first (one API call less per bind), and reads only when the API server says
     * another writer came between (409).
     */
    private boolean write(String node, Map<String, String> entries, String version) {
        writes.increment();
        Optional<String> written = api.writeLedger(node, entries, version);
        if (written.isPresent()) {
            known.put(node, new ClusterApi.Ledger(entries, written.get()));
        } else {
            known.remove(node);
            conflicts.increment();
        }
        return written.isPresent();
    }

    /** Ledger writes made so far (binds, undoing them, tidying). */
    public long ledgerWrites() {
        return writes.sum();
    }

    /** Ledger writes refused so far because another writer (another replica, a tidy of another) came first. */
    public long ledgerConflicts() {
        return conflicts.sum();
    }

    /**
     * Rewrites {@code node}'s ledger without the reservations of pods that are gone (or bound elsewhere, or abandoned
     * mid-bind), if it holds any: called some time after pods left the node, so that ledgers do not keep entries of
     * deleted pods until the node's next bind. A concurrent writer wins; the next tidy or bind prunes again.
     */
    public void tidy(String node) {
        turns.alone(node, () -> {
            ClusterApi.Ledger ledger = api.readLedger(node);
            Map<String, String> entries = current(ledger.entries(), node, Set.of());
            if (entries.size() < ledger.entries().size()) {
                write(node, entries, ledger.version());
            }
            return null;
        });
    }

    /** Takes pod {@code uid}'s reservation out of {@code node}'s ledger and the cache, after a bind that failed. */
    private void unreserve(String uid, String node) {
        turns.alone(node, () -> {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                ClusterApi.Ledger ledger = api.readLedger(node);
                Map<String, String> entries = new LinkedHashMap<>(ledger.entries());
                if (entries.remove(uid) == null || write(node, entries, ledger.version())) {
                    break;
                }
            }
            return null;
        });
        cache.forget(uid);
    }

    /** The ledger without reservations of pods that are gone, went to another node, or were abandoned mid-bind. */
    private Map<String, String> current(Map<String, String> entries, String node, Set<String> binding) {
        Map<String, String> kept = new LinkedHashMap<>();
        long now = clock.millis();
        for (var e : entries.entrySet()) {
            String uid = e.getKey();
            LedgerEntry entry;
            try {
                entry = LedgerEntry.fromJson(e.getValue());
            } catch (IllegalArgumentException bad) {
                LOG.warn("node={}: dropping unreadable ledger entry of uid={}: {}", node, uid, bad.getMessage());
                continue;
            }
            if (binding.contains(uid) || keep(uid, entry, node, now)) {
                kept.put(uid, e.getValue());
            }
        }
        return kept;
    }

    /**
     * Deleted and terminal pods (as the informer reported them, which is final) lose their reservation; pods seen
     * bound keep it on their node only. A waiting pod's reservation is kept while fresh (its bind may be in flight).
     * Otherwise (a pod never seen here, or a stale reservation) the API decides: kept if the pod is bound here, or
     * waiting and the reservation fresh; dropped if it is gone, bound elsewhere, or was abandoned mid-bind.
     */
    private boolean keep(String uid, LedgerEntry entry, String node, long now) {
        PodPresence status = cache.podStatus(uid);
        if (status == PodPresence.GONE) {
            return false;
        }
        Optional<String> bound = cache.boundNode(uid);
        if (bound.isPresent()) {
            return bound.get().equals(node);
        }
        boolean fresh = now - entry.reservedAtMillis() < staleReservation.toMillis();
        if (status == PodPresence.LIVE && fresh) {
            return true;
        }
        ClusterApi.PodView view = api.pod(entry.namespace(), entry.name(), uid);
        if (!view.live()) {
            return false;
        }
        return view.node() != null ? view.node().equals(node) : fresh;
    }
}
