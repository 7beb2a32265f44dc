package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.core.model.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Sharing with the scheduler extender: every container gets the cards the extender planned for it (the pod's
 * {@code elasticgpu.io/allocation}), found through {@link Matcher}. Before answering, the plan is checked against
 * what the node's containers hold now (node-level rule 2: kubelet may admit pods in another order than the
 * extender assumed); when several pods wait with the same ask, plans are a pool and a container may take another
 * waiting pod's plan if its own is taken, which {@link #reconcile} later records in the pods. The lock is held for
 * one decision (microseconds to a few milliseconds), never across API calls or waits.
 * It is over 400 lines because deciding, moving a guessed answer to the container kubelet was admitting, and counting
 * what the cards hold share one lock and one set of answers; split, that state would have to be shared between classes.
 */
public final class PlanAllocator implements Allocator {

    private final PodSource pods;
    private final KubeletRecords kubelet;
    private final CardTable cards;
    private final Topology topology;
    /** Answered calls, by the order they were answered in. */
    private final Answers answers = new Answers();

    private long answered;
    private Records learnt; // the records learn() last read
    private volatile Records last; // null until the first read: any nanoTime value is a valid time, even 0
    private final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
    private final LongSupplier nanos;

    /**
     * kubelet's records as last read, indexed once for every call that reuses them, when ({@link #nanos}), and the
     * how-manieth read it was (reads run outside the lock, so an older one may arrive after a newer one).
     */
    private record Records(Served.Index index, long nanos, long serial) {

        Map<ContainerKey, Map<String, List<String>>> byContainer() {
            return index.records();
        }
    }

    /** How long kubelet's records are reused while every answered call was for a known container. */
    static final Duration REUSE_RECORDS = Duration.ofSeconds(10);

    public PlanAllocator(PodSource pods, KubeletRecords kubelet, CardTable cards, Topology topology) {
        this(pods, kubelet, cards, topology, System::nanoTime);
    }

    /**
     * @param nanos the clock the record reuse and answer expiry go by ({@code System::nanoTime}; tests move their own)
     * */
    PlanAllocator(PodSource pods, KubeletRecords kubelet, CardTable cards, Topology topology, LongSupplier nanos) {
        this.nanos = nanos;
        this.pods = pods;
        this.kubelet = kubelet;
        this.cards = cards;
        this.topology = topology;
    }

    /**
     * Answers kubelet's {@code Allocate} for {@code ids} of {@code resource}.
     *
     * @throws AllocationException when no waiting container asks for it or its cards would exceed a capacity
     */
    @Override
    public ContainerGrant allocate(String resource, List<String> ids) {
        List<NodePod> podList = pods.pods();
        boolean fresh = mustReread(podList);
        Records records = fresh ? reread() : last;
        try {
            Optional<ContainerGrant> grant = decide(resource, ids, podList, records, fresh);
            if (grant.isEmpty()) { // the watch may not have seen a pod kubelet already has
                grant = decide(resource, ids, pods.refresh(), fresh ? records : reread(), true);
            }
            return grant.orElseThrow(() -> new AllocationException(
                    ("no pod bound to this node waits for %d of %s (kubelet asked for devices %s); check that the pod "
                                    + "was bound by the Elastic GPU extender (it has the "
                                    + "elasticgpu.io/allocation annotation)")
                            .formatted(ids.size(), resource, abbreviate(ids))));
        } catch (AllocationException e) {
            if (fresh) {
                throw e;
            }
            return decide(resource, ids, pods.refresh(), reread(), true)
                    .orElseThrow(() -> e); // never refuse on old records
        }
    }

    /**
     * kubelet's pod-resources list costs milliseconds on a busy node, so it is reused for {@link #REUSE_RECORDS}
     * while what kubelet recorded since is known: only this agent's answers change it, and pods that left are known
     * from the API. A call that finds no container or would over-commit reads it again before refusing, and the
     * recorder reads it afresh before writing anything into a pod.
     */
    private synchronized boolean mustReread(List<NodePod> podList) {
        Records read = last;
        if (read == null || nanos.getAsLong() - read.nanos() > REUSE_RECORDS.toNanos()) {
            return true;
        }
        // After a guess among pods of one shape, who got what does not change what the next call gets (plans are a
        // pool), only which pod is part-way through admission: that needs kubelet's records when a pod has steps.
        return answers.guessOutstanding()
                && podList.stream()
                        .anyMatch(p -> p.containers().size() > 1
                                || p.containers().stream()
                                        .anyMatch(c -> c.limits().size() > 1));
    }

    private Records reread() {
        long now = nanos.getAsLong();
        long serial = reads.incrementAndGet();
        Records records = new Records(new Served.Index(kubelet.list()), now, serial);
        synchronized (this) {
            if (last == null || last.serial() < serial) {
                last = records;
            }
        }
        return records;
    }

    /**
     * @param fresh whether {@code records} were read for this call; older records still show everything kubelet
     *              did unless an earlier answer was a guess, and then this call cannot be certain either
     */
    private synchronized Optional<ContainerGrant> decide(
            String resource, List<String> ids, List<NodePod> podList, Records records, boolean fresh) {
        boolean known = fresh || !answers.guessOutstanding();
        learn(records, podList);
        Served served = new Served(records.index(), answers);
        Optional<Match> match = Matcher.match(resource, ids.size(), podList, served);
        if (match.isEmpty()) {
            return Optional.empty();
        }
        Match m = match.get();
        Optional<Map.Entry<Long, Answer>> earlier = answers.firstWithout(m.key(), resource);
        if (earlier.isPresent()) { // another resource of this container was answered: same cards
            Answer h = earlier.get().getValue();
            String overflow =
                    usage(podList, records, h, m.key()).overflow(h.grant().shares()); // its shares change after a guess
            if (!overflow.isEmpty()) {
                throw new AllocationException(
                        "cannot give %s its share on the cards kubelet's previous call got for it: %s"
                                .formatted(m.key(), overflow));
            }
            answers.put(earlier.get().getKey(), h.plus(resource, ids));
            return Optional.of(h.grant());
        }
        if (m.certain() && known) {
            Optional<ContainerGrant> regrant = reattribute(m, resource, ids, podList, records);
            if (regrant.isPresent()) {
                return regrant;
            }
        }
        Usage usage = usage(podList, records, null, null);
        PlanChoice choice = choose(m, resource, ids, usage, podList);
        ContainerGrant grant = new ContainerGrant(
                m.key(),
                choice.shares(),
                m.container().family(),
                choice.note(),
                ContainerGrant.answerId(resource, ids));
        answers.put(
                ++answered,
                new Answer(
                        grant,
                        choice.owner(),
                        Map.of(resource, List.copyOf(ids)),
                        nanos.getAsLong(),
                        false,
                        m.certain() && known));
        return Optional.of(grant);
    }

    /**
     * Answers kubelet's {@code GetPreferredAllocation}: device ids on the cards planned for the container the next
     * call will most likely be for, so that kubelet's own records name the planned cards. Without a plan: whole
     * cards the best-linked set, slices the first ids.
     */
    @Override
    public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
        List<NodePod> podList = pods.pods();
        Records records = mustReread(podList) ? reread() : last; // the records the next allocate goes by
        Optional<Match> match = match(resource, size, podList, records);
        if (match.isEmpty()) { // kubelet may admit a pod the watch has not delivered yet, as in allocate
            match = match(resource, size, pods.refresh(), records);
        }
        List<Integer> planned =
                match.map(m -> cardsOf(m.pod().planFor(m.container().name()))).orElse(List.of());
        return Preference.of(cards, resource, available, mustInclude, size, planned, topology);
    }

    private synchronized Optional<Match> match(String resource, int size, List<NodePod> podList, Records records) {
        return Matcher.match(resource, size, podList, new Served(records.index(), answers));
    }

    /**
     * kubelet allocates a container's resources one after another in no fixed order. When this call is certainly
     * for a container that asks other resources too, and the call just before was a guess for another container
     * with the same count, kubelet was admitting this container then: that answer's cards are this container's
     * (the first answer is out and names them), with this container's own shares on them.
     */
    private Optional<ContainerGrant> reattribute(
            Match m, String resource, List<String> ids, List<NodePod> podList, Records records) {
        Map.Entry<Long, Answer> latest = answers.latest();
        if (latest == null) {
            return Optional.empty();
        }
        Answer h = latest.getValue();
        boolean sameCounts = h.ids().entrySet().stream()
                .allMatch(e -> m.container().asks(e.getKey()) == e.getValue().size());
        if (h.seen()
                || h.certain()
                || h.ids().containsKey(resource)
                || h.grant().container().equals(m.key())
                || !sameCounts) {
            return Optional.empty();
        }
        List<Share> shares = ownSharesOn(m.key(), h.grant().shares(), byName(podList));
        String overflow = usage(podList, records, h, m.key()).overflow(shares);
        if (!overflow.isEmpty()) {
            throw new AllocationException(
                    "cannot give %s the cards kubelet's previous call got for it: %s".formatted(m.key(), overflow));
        }
        ContainerGrant grant = new ContainerGrant(
                m.key(),
                shares,
                m.container().family(),
                "kubelet was admitting this container when it asked for %s; it has the cards answered then"
                        .formatted(String.join(", ", h.ids().keySet())),
                h.grant().answerId());
        answers.put(
                latest.getKey(), new Answer(grant, h.planOwner(), h.ids(), h.nanos(), false, true).plus(resource, ids));
        return Optional.of(grant);
    }

    /** {@code container}'s own planned shares, on the cards it was given (they differ only after a guess). */
    private static List<Share> ownSharesOn(ContainerKey container, List<Share> given, Map<PodName, NodePod> pods) {
        NodePod pod = pods.get(PodName.of(container));
        List<Share> plan = pod == null ? List.of() : pod.planFor(container.container());
        if (plan.size() != given.size()) {
            return given;
        }
        return java.util.stream.IntStream.range(0, given.size())
                .mapToObj(i ->
                        plan.get(i).movedTo(given.get(i).card(), given.get(i).uuid()))
                .toList();
    }

    private record PlanChoice(ContainerKey owner, List<Share> shares, String note) {}

    /**
     * The container's own plan if it is free and fits; else a free plan of another container with the same ask
     * (waiting ones first): when kubelet admitted a pod other than the one guessed, that pod took the guessed pod's
     * plan and its own plan is the one left.
     */
    private PlanChoice choose(Match m, String resource, List<String> ids, Usage usage, List<NodePod> podList) {
        List<Match.Others> pool = new ArrayList<>();
        pool.add(new Match.Others(m.pod(), m.container()));
        pool.addAll(m.others());
        int waiting = pool.size();
        String why = "";
        for (int i = 0; ; i++) {
            if (i == waiting) { // no waiting container's plan fits: then the other containers' with the same ask
                pool.addAll(sameAsk(pool, resource, ids.size(), podList));
            }
            if (i == pool.size()) {
                break;
            }
            Match.Others o = pool.get(i);
            ContainerKey owner = o.pod().key(o.container());
            List<Share> plan = o.pod().planFor(o.container().name());
            if (answers.taken(owner) || plan.isEmpty()) {
                continue;
            }
            if (cards.wholeCards(resource) && !cardsOf(plan).equals(cards.cardsOf(ids))) {
                why = why.isEmpty()
                        ? "kubelet chose cards %s, the plan says %s".formatted(cards.cardsOf(ids), cardsOf(plan))
                        : why;
                continue;
            }
            String overflow = usage.overflow(plan);
            if (!overflow.isEmpty()) {
                why = why.isEmpty() ? overflow : why;
                continue;
            }
            String note = owner.equals(m.key())
                    ? (m.certain()
                            ? ""
                            : "oldest of %d waiting with the same ask"
                                    .formatted(m.others().size() + 1))
                    : "took the cards planned for %s".formatted(owner);
            return new PlanChoice(owner, plan, note);
        }
        throw new AllocationException(
                ("cannot give %s the cards the scheduler planned: %s; nothing was given, so no card is "
                                + "over-committed; kubelet rejects the pod (UnexpectedAdmissionError) and its "
                                + "controller, if "
                                + "it has one, creates it again")
                        .formatted(m.key(), why.isEmpty() ? "the extender planned nothing for it" : why));
    }

    /** Containers asking {@code count} of {@code resource} that are not in {@code pool}, oldest pod first. */
    private static List<Match.Others> sameAsk(
            List<Match.Others> pool, String resource, int count, List<NodePod> podList) {
        Set<ContainerKey> inPool = new HashSet<>();
        pool.forEach(o -> inPool.add(o.pod().key(o.container())));
        List<Match.Others> more = new ArrayList<>();
        podList.stream()
                .sorted(java.util.Comparator.comparingLong(NodePod::assumeTime))
                .forEach(p -> p.containers().stream()
                        .filter(c -> c.asks(resource) == count && inPool.add(p.key(c)))
                        .forEach(c -> more.add(new Match.Others(p, c))));
        return more;
    }

    private static List<Integer> cardsOf(List<Share> shares) {
        return shares.stream().map(Share::card).distinct().sorted().toList();
    }

    /**
     * What every container of a pod bound here holds, each counted once: what this agent's first answer for it gave it
     * (leaving out the answer {@code skip}), else what its pod's annotation says it got if kubelet lists it; except
     * the container {@code self}, whose shares the caller adds (kubelet may already list it with a resource answered
     * before). A pod deleted since kubelet's records were read holds nothing any more. It costs a look-up or two per
     * container of the node, however many answers are kept.
     */
    private Usage usage(List<NodePod> podList, Records records, Answer skip, ContainerKey self) {
        Usage usage = new Usage(cards);
        Map<ContainerKey, Map<String, List<String>>> listed = records.byContainer();
        for (NodePod p : podList) {
            for (NodePod.Container c : p.containers()) {
                if (p.key(c).equals(self)) {
                    continue;
                }
                holds(p, c, listed, skip).ifPresent(usage::add);
            }
        }
        return usage;
    }

    /** What container {@code c} of {@code p} holds as {@link #usage} counts it; empty when nothing says it holds. */
    private Optional<List<Share>> holds(
            NodePod p, NodePod.Container c, Map<ContainerKey, Map<String, List<String>>> listed, Answer skip) {
        ContainerKey k = p.key(c);
        Optional<Answer> given = answers.first(k, skip);
        if (given.isPresent()) {
            return Optional.of(given.get().grant().shares());
        }
        return listed.containsKey(k)
                ? Optional.of(cards.listedHolds(p.planFor(c.name()), listed.get(k)))
                : Optional.empty();
    }

    /**
     * What each container that kubelet lists with our devices holds, read afresh, as every decision counts it: the
     * agent's answer of this run, else what {@link CardTable#listedHolds} makes of its plan. The agent keeps nothing on
     * disk, so after a restart this is what it rebuilt from kubelet's records and the API.
     *
     * @throws AllocationException when kubelet's records cannot be read
     */
    public Map<ContainerKey, List<Share>> held() {
        Map<ContainerKey, Map<String, List<String>>> listed = reread().byContainer(); // outside the lock: I/O
        List<NodePod> podList = pods.pods();
        Map<ContainerKey, List<Share>> out = new java.util.LinkedHashMap<>();
        synchronized (this) {
            for (NodePod p : podList) {
                p.containers().stream()
                        .filter(c -> listed.containsKey(p.key(c)))
                        .forEach(c -> holds(p, c, listed, null).ifPresent(h -> out.put(p.key(c), h)));
            }
        }
        return out;
    }

    /**
     * Moves each answered call to the container kubelet recorded it under, and forgets calls of containers kubelet
     * listed before and no longer does (their pods ended), calls whose devices a read that started
     * {@link #UNRECORDED} after the answer does not list (except an init container's, which kubelet never lists), and
     * calls never listed within {@link #FORGET_AFTER}.
     */
    private void learn(Records read, List<NodePod> podList) {
        if (answers.isEmpty() || (learnt != null && read.serial() <= learnt.serial())) {
            return; // the same records, or older ones, teach nothing new
        }
        learnt = read;
        Map<PodName, NodePod> pods = byName(podList);
        Map<ContainerKey, Map<String, List<String>>> records = read.byContainer();
        Served.Index served = read.index();
        for (Map.Entry<Long, Answer> e : answers.entries()) {
            Answer h = e.getValue();
            ContainerKey said = h.grant().container();
            if (h.seen()) { // who holds it is known; only whether kubelet still lists it matters
                if (!records.containsKey(said)) {
                    answers.remove(e.getKey());
                }
                continue;
            }
            Map.Entry<String, List<String>> any = h.ids().entrySet().iterator().next();
            Optional<ContainerKey> holder = served.holderOf(any.getKey(), any.getValue());
            if (holder.isEmpty()) {
                if (nanos.getAsLong() - h.nanos() > FORGET_AFTER.toNanos()
                        || (read.nanos() - h.nanos() > UNRECORDED.toNanos() && !initContainer(said, pods))) {
                    answers.remove(e.getKey());
                }
            } else if (holder.get().equals(said)) {
                answers.put(e.getKey(), h.recorded());
            } else if (!h.certain()) {
                // A guess kubelet's records correct. A certain answer is never moved: kubelet hands a finished init
                // container's ids on to the next container, so two containers may show the same ids.
                ContainerGrant g = h.grant();
                ContainerGrant truth = g.moved(
                        holder.get(),
                        ownSharesOn(holder.get(), g.shares(), pods),
                        "kubelet gave these cards to this container, not to %s".formatted(said));
                answers.put(e.getKey(), new Answer(truth, h.planOwner(), h.ids(), h.nanos(), true, true));
            }
        }
    }

    /** A call kubelet has not recorded this long after it was answered was abandoned (pod gone, admission failed). */
    static final Duration FORGET_AFTER = Duration.ofMinutes(2);

    /**
     * kubelet records a container's devices as soon as the plugin's answer reaches it, before it asks for the next
     * resource. A read of its records that started this long after an answer and does not list the answer's devices
     * means that no container holds them any more: the pod ended between two reads (a short job on a busy node), or
     * kubelet gave up admitting it. Such calls are forgotten then rather than after {@link #FORGET_AFTER}, so that
     * the answers kept stay about as many as the node's containers.
     */
    static final Duration UNRECORDED = Duration.ofSeconds(1);

    private static boolean initContainer(ContainerKey key, Map<PodName, NodePod> pods) {
        NodePod pod = pods.get(PodName.of(key));
        return pod != null
                && pod.containers().stream().anyMatch(c -> c.init() && c.name().equals(key.container()));
    }

    private static Map<PodName, NodePod> byName(List<NodePod> podList) {
        Map<PodName, NodePod> out = new HashMap<>();
        podList.forEach(p -> out.put(PodName.of(p), p));
        return out;
    }

    /** Whether some answered call has not been seen in kubelet's records yet. */
    public synchronized boolean truthPending() {
        return answers.anyUnseen();
    }

    /** The grants kubelet has recorded, by container, for writing into the pods. */
    public Map<ContainerKey, ContainerGrant> reconcile() {
        return reconcile(reread());
    }

    private synchronized Map<ContainerKey, ContainerGrant> reconcile(Records read) {
        learn(read, pods.pods());
        Map<ContainerKey, Map<String, List<String>>> records = read.byContainer();
        Map<ContainerKey, ContainerGrant> out = new HashMap<>();
        Set<String> admitted = new HashSet<>();
        answers.values().forEach(h -> {
            if (h.seen()) {
                out.put(h.grant().container(), h.grant());
                admitted.add(h.grant().container().namespace() + "/"
                        + h.grant().container().pod());
            }
        });
        // kubelet never lists init containers that run to completion; once a later container of their pod is
        // listed, kubelet has admitted the pod and what they were answered is what they got.
        Set<ContainerKey> inits = new HashSet<>();
        pods.pods()
                .forEach(p ->
                        p.containers().stream().filter(NodePod.Container::init).forEach(c -> inits.add(p.key(c))));
        answers.values().forEach(h -> {
            ContainerKey k = h.grant().container();
            if (!h.seen() && inits.contains(k) && admitted.contains(k.namespace() + "/" + k.pod())) {
                out.putIfAbsent(k, h.grant());
            }
        });
        answeredBefore(records, out);
        return out;
    }

    /**
     * Containers kubelet lists with our devices that no answer of this run covers were answered before it started,
     * by an earlier run that may have been killed before it recorded them: they hold what their pod's annotation
     * says (the extender's plan, which an answer for a certain container always is, or what was recorded). Their
     * cards are not read from kubelet's device ids: a slice's ids only count blocks, its card is the one answered.
     */
    private void answeredBefore(
            Map<ContainerKey, Map<String, List<String>>> records, Map<ContainerKey, ContainerGrant> out) {
        for (NodePod p : pods.pods()) {
            for (NodePod.Container c : p.containers()) {
                ContainerKey k = p.key(c);
                List<Share> plan = p.planFor(c.name());
                if (!out.containsKey(k) && records.containsKey(k) && !plan.isEmpty()) {
                    List<Share> held = cards.listedHolds(plan, records.get(k));
                    String note = held.equals(plan)
                            ? ""
                            : "answered before the agent restarted: kubelet lists cards %s, the plan said %s"
                                    .formatted(cardsOf(held), cardsOf(plan));
                    out.put(k, new ContainerGrant(k, held, c.family(), note));
                }
            }
        }
    }

    private static String abbreviate(List<String> ids) {
        return ids.size() <= 4 ? ids.toString() : ids.subList(0, 4) + " and " + (ids.size() - 4) + " more";
    }
}
