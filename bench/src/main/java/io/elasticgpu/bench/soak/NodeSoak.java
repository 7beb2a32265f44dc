package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.bench.soak.NodeAudit.Running;
import io.elasticgpu.node.kubelet.Admission;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * {@code bench/run node-soak} (the node side): pods of the openb trace's shapes admitted one after the
 * other on one 8-card node by kubelet's own device manager, the agent answering, with a fault every few steps:
 * kubelet restarted, the agent SIGKILLed while kubelet is admitting a pod (and started again), one of its plugin
 * sockets deleted, an Xid storm on random cards. The soak plays the extender (it plans each pod's cards as the
 * extender binds them) and removes pods to make room. After every step {@link NodeAudit} checks the running
 * containers; after every fault and at the end, that every allocation is recorded and the agent's ledger matches.
 * It is over 400 lines because the soak's loop and its faults share the node, the agent and the audit.
 */
public final class NodeSoak {

    /** The faults, taking turns. */
    enum Fault {
        KUBELET_RESTARTED,
        AGENT_KILLED_MID_ADMISSION,
        PLUGIN_SOCKET_DELETED,
        XID_STORM
    }

    /** How long the agent has to record allocations and reconcile its ledger after a step before it counts. */
    private static final long SETTLE_MILLIS = 30_000;
    /** Xids that take a card out of service, and application ones the agent must ignore. */
    private static final int[] XIDS = {79, 48, 94, 95, 74, 13, 31, 43};
    /**
     * After a storm, kubelet and the published inventory may briefly disagree on health: a refusal then is not a bug.
     * */
    private static final long STORM_GRACE_NANOS = 20_000_000_000L;

    private final NodeRig rig;
    private final NodeSoakOptions options;
    private final PrintStream log;
    private final SplittableRandom random;
    private final PodShapes shapes;
    private final NodePlanner planner;
    private final Violations violations = new Violations();
    private final NodeAudit audit = new NodeAudit(violations);
    private final Rss rss = new Rss();
    private final Map<String, Running> running = new LinkedHashMap<>();
    /** Pods created and not yet admitted or refused: what the soak planned for each, by uid. */
    private final Map<String, NodePlanner.Plan> plans = new HashMap<>();

    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<String> faultLog = new ArrayList<>();
    private final List<Long> admitNanos = new ArrayList<>();
    private final List<Fault> turns = new ArrayList<>();
    private final long start = System.nanoTime();
    private long lastStorm = Long.MIN_VALUE / 2;
    private int serial;
    private int created;
    private int removed;
    private int rejected;
    private int checks;

    private NodeSoak(NodeRig rig, NodeSoakOptions options, PrintStream log) {
        this.rig = rig;
        this.options = options;
        this.log = log;
        this.random = new SplittableRandom(options.seed());
        this.shapes = PodShapes.from(options.trace(), "default-scheduler");
        this.planner = new NodePlanner(rig.client(), rig.node(), random.split());
    }

    public static SoakResult run(NodeSoakOptions options, Path workDir, PrintStream log) throws Exception {
        try (NodeRig rig = NodeRig.start(workDir)) {
            log.printf("node-soak: node %s ready (logs in %s)%n", rig.node(), rig.logs());
            NodeSoak soak = new NodeSoak(rig, options, log);
            soak.churn();
            soak.drain();
            return soak.result();
        }
    }

    private void churn() {
        int step = 0;
        while (admitted() < options.pods()) {
            step++;
            if (step % options.faultEvery() == 0) {
                fault(nextFault());
            } else if (!running.isEmpty() && random.nextInt(10) < 4) {
                remove(any());
            } else {
                admitNext();
            }
            check();
            if (step % 10 == 0) {
                rss.sample(rig.pids());
            }
            if (step % 100 == 0) {
                log.printf(
                        "node-soak: step %d, %d admitted, %d running, %d rejected, faults %s, violations %d%n",
                        step, admitted(), running.size(), rejected, faults, violations.total());
            }
        }
        settle("after the last step");
    }

    private int admitted() {
        return admitNanos.size();
    }

    // --- pods -------------------------------------------------------------------------------------------------

    /** The next pod with a GPU ask, planned; pods are removed until it fits. Empty only if it fits no empty node. */
    private Optional<Pod> nextPlanned() {
        while (true) {
            Pod pod = shaped();
            while (true) {
                Optional<NodePlanner.Plan> plan = planner.plan(
                        pod, running.values().stream().map(Running::placements).toList());
                if (plan.isPresent()) {
                    return Optional.of(create(pod, plan.get()));
                }
                if (running.isEmpty()) {
                    break; // too large for the node even when empty (or its cards are all unhealthy): the next shape
                }
                remove(any());
            }
        }
    }

    private Pod shaped() {
        while (true) {
            Pod p = shapes.next("p-" + ++serial, random).pod();
            // kube-scheduler would not bind a pod here that asks a resource the node does not offer (volcano.sh's
            // gpu-memory in MiB is too long a device list for kubelet on eight 80 GB cards).
            if (NodePlanner.asksGpu(p)
                    && rig.kubelet()
                            .capacity()
                            .capacity()
                            .keySet()
                            .containsAll(p.getSpec()
                                    .getContainers()
                                    .getFirst()
                                    .getResources()
                                    .getLimits()
                                    .keySet())) {
                return new PodBuilder(p)
                        .editMetadata()
                        .withNamespace(NodeRig.NAMESPACE)
                        .endMetadata()
                        .editSpec()
                        .withSchedulerName(null)
                        .withNodeName(rig.node())
                        .endSpec()
                        .build();
            }
        }
    }

    /** The pod in the API, bound and annotated as the extender's bind leaves it. */
    private Pod create(Pod pod, NodePlanner.Plan plan) {
        Pod bound = new PodBuilder(pod)
                .editMetadata()
                .addToAnnotations(Annotations.ALLOCATION, plan.allocation().toJson())
                .addToAnnotations(Annotations.ASSUME_TIME, Long.toString(System.nanoTime()))
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ASSUMED)
                .endMetadata()
                .build();
        created++;
        Pod made = rig.client()
                .pods()
                .inNamespace(NodeRig.NAMESPACE)
                .resource(bound)
                .create();
        plans.put(made.getMetadata().getUid(), plan);
        return made;
    }

    private void admitNext() {
        nextPlanned().ifPresent(pod -> admitted(pod, admit(pod), false));
    }

    private Admission admit(Pod pod) {
        long t0 = System.nanoTime();
        Admission a = rig.kubelet().admit(pod);
        if (a instanceof Admission.Admitted) {
            admitNanos.add(System.nanoTime() - t0);
        }
        return a;
    }

    /** Keeps an admitted pod running; a refused one is taken away as kubelet would fail it. */
    private void admitted(Pod pod, Admission a, boolean duringFault) {
        String uid = pod.getMetadata().getUid();
        NodePlanner.Plan plan = plans.remove(uid);
        if (a instanceof Admission.Admitted ok) {
            running.put(
                    uid,
                    new Running(
                            uid, pod.getMetadata().getName(), plan.placements(), plan.allocation(), ok.containers()));
            return;
        }
        rejected++;
        String why = "%s refused: %s".formatted(pod.getMetadata().getName(), a);
        boolean excused = duringFault || System.nanoTime() - lastStorm < STORM_GRACE_NANOS;
        if (excused) {
            logFault(why);
        } else {
            violations.add("planned-pod-refused", why);
        }
        // kubelet fails a pod its admission refused (it is no longer active); one whose container did not start stays.
        deleteFromApi(pod.getMetadata().getName());
        if (a instanceof Admission.ContainerNotStarted) {
            rig.kubelet().remove(uid);
        }
    }

    private Running any() {
        List<Running> all = List.copyOf(running.values());
        return all.get(random.nextInt(all.size()));
    }

    private void remove(Running r) {
        running.remove(r.uid());
        deleteFromApi(r.name());
        rig.kubelet().remove(r.uid());
        removed++;
    }

    private void deleteFromApi(String name) {
        rig.client()
                .pods()
                .inNamespace(NodeRig.NAMESPACE)
                .withName(name)
                .withGracePeriod(0)
                .delete();
    }

    // --- faults -----------------------------------------------------------------------------------------------

    private Fault nextFault() {
        if (turns.isEmpty()) {
            turns.addAll(Arrays.asList(Fault.values()));
            Collections.shuffle(turns, new java.util.Random(random.nextLong()));
        }
        return turns.removeFirst();
    }

    private void fault(Fault f) {
        faults.merge(f.name(), 1, Integer::sum);
        switch (f) {
            case KUBELET_RESTARTED -> {
                rig.kubelet().restart();
                rig.awaitRegistered();
                logFault("kubelet restarted");
            }
            case AGENT_KILLED_MID_ADMISSION -> killMidAdmission();
            case PLUGIN_SOCKET_DELETED -> deleteSocket();
            case XID_STORM -> storm();
        }
        settle("after " + f);
    }

    private void killMidAdmission() {
        Optional<Pod> pod = nextPlanned();
        CompletableFuture<Admission> admission = pod.map(p -> CompletableFuture.supplyAsync(() -> admit(p)))
                .orElse(CompletableFuture.completedFuture(null));
        Soak.sleep(Duration.ofMillis(random.nextInt(60)));
        rig.killAgent();
        Admission a = admission.join();
        logFault("agent SIGKILLed while kubelet admitted %s: %s"
                .formatted(
                        pod.map(p -> p.getMetadata().getName()).orElse("nothing"),
                        a == null ? "-" : a.getClass().getSimpleName()));
        rig.startAgent();
        pod.ifPresent(p -> admitted(p, a, true));
    }

    private void deleteSocket() {
        List<Path> sockets = rig.pluginSockets();
        Path gone = sockets.get(random.nextInt(sockets.size()));
        try {
            Files.delete(gone);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + SETTLE_MILLIS * 1_000_000;
        while (!Files.exists(gone) && System.nanoTime() < deadline) {
            Soak.sleep(Duration.ofMillis(100));
        }
        if (!Files.exists(gone)) {
            violations.add(
                    "plugin-socket-not-restored", gone.getFileName() + " still missing after " + SETTLE_MILLIS + " ms");
        }
        rig.awaitRegistered();
        logFault("plugin socket " + gone.getFileName() + " deleted, served again");
    }

    private void storm() {
        List<Integer> cards = new ArrayList<>(
                java.util.stream.IntStream.range(0, NodeRig.CARDS).boxed().toList());
        Collections.shuffle(cards, new java.util.Random(random.nextLong()));
        List<Integer> hit = cards.subList(0, 1 + random.nextInt(3));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 10 * hit.size(); i++) {
            lines.add("xid %d %d".formatted(hit.get(i % hit.size()), XIDS[random.nextInt(XIDS.length)]));
        }
        lastStorm = System.nanoTime();
        rig.events(lines);
        long deadline = System.nanoTime() + SETTLE_MILLIS * 1_000_000;
        while (System.nanoTime() < deadline && hit.stream().allMatch(this::healthyInInventory)) {
            Soak.sleep(Duration.ofMillis(100));
        }
        if (hit.stream().allMatch(this::healthyInInventory)) {
            violations.add("xid-not-published", "cards " + hit + " still healthy in the inventory after an Xid storm");
        }
        logFault("Xid storm on cards " + hit);
    }

    private boolean healthyInInventory(int card) {
        var a = rig.client().nodes().withName(rig.node()).get().getMetadata().getAnnotations();
        return NodeInventory.fromJson(a.get(Annotations.INVENTORY))
                .cards()
                .get(card)
                .healthy();
    }

    private void logFault(String what) {
        faultLog.add("%.0f s %s".formatted((System.nanoTime() - start) / 1e9, what));
        log.println("node-soak: " + what);
    }

    // --- checks -----------------------------------------------------------------------------------------------

    private Map<String, Pod> apiPods() {
        return rig.client().pods().inNamespace(NodeRig.NAMESPACE).list().getItems().stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getUid(), p -> p));
    }

    private void check() {
        checks++;
        audit.step(running, apiPods());
    }

    /** Within {@link #SETTLE_MILLIS}, every running pod's allocation is recorded and the agent's ledger matches. */
    private void settle(String when) {
        long deadline = System.nanoTime() + SETTLE_MILLIS * 1_000_000;
        Optional<String> difference;
        Map<String, Pod> api;
        do {
            Soak.sleep(Duration.ofMillis(250));
            api = apiPods();
            Map<String, Pod> now = api;
            boolean recorded = running.values().stream()
                    .allMatch(r -> NodeAudit.recorded(now.get(r.uid())).isPresent());
            difference = rig.agentMemoryByCard()
                    .map(held -> NodeAudit.ledgerDifference(running, now, held))
                    .orElse(Optional.of("the agent's /metrics does not answer"));
            if (recorded && difference.isEmpty()) {
                return;
            }
        } while (System.nanoTime() < deadline);
        audit.recordedAll(running, api, when);
        difference.ifPresent(d -> violations.add("agent-ledger-differs", when + ": " + d));
    }

    private void drain() {
        List.copyOf(running.values()).forEach(this::remove);
        settle("after the drain");
        int left = apiPods().size();
        if (left > 0) {
            violations.add("left-after-drain", left + " pods still in the API");
        }
    }

    private SoakResult result() {
        double seconds = (System.nanoTime() - start) / 1e9;
        long[] sorted = admitNanos.stream().mapToLong(Long::longValue).sorted().toArray();
        List<String> events = new ArrayList<>(faultLog);
        events.add("%d pods refused by kubelet in all (a refusal outside a fault is also a violation)"
                .formatted(rejected));
        return new SoakResult(
                seconds / 60,
                1,
                options.seed(),
                created,
                0,
                admitted(),
                removed,
                0,
                admitted() / seconds,
                Soak.percentile(sorted, 50),
                Soak.percentile(sorted, 99),
                checks,
                new TreeMap<>(faults),
                events,
                violations.counts(),
                violations.examples(),
                rss.trends(),
                SoakResult.Memory.NOT_MEASURED,
                Map.of(),
                List.of());
    }
}
