package io.elasticgpu.bench.cluster;

import io.elasticgpu.core.model.Node;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * One cluster replay: a fresh control plane, one kwok node per row of the node list, the extender and the second
 * kube-scheduler as the chart runs them, the pods of the plan created by concurrent clients; then the audit, the
 * simulator on the order the pods became schedulable in, and (unless turned off) the same pods again through
 * kube-scheduler without the extender, for the control plane's own pods/s.
 */
public final class ClusterReplay {

    private static final String NAMESPACE = "replay";
    /** How long kwok and the node lifecycle controller get to make every node schedulable. */
    private static final Duration NODES_SETTLE = Duration.ofMinutes(10);

    private ClusterReplay() {}

    /** Runs {@code options} on a control plane of its own under {@code workDir}; progress goes to {@code log}. */
    public static ReplayResult run(ReplayOptions options, Path repository, Path workDir, PrintStream log)
            throws IOException {
        ReplayPlan plan = ReplayPlan.of(options);
        ChartConfig chart = ChartConfig.render(repository);
        log.printf(
                "cluster-replay: %s, %d nodes, %d pods to the %.0f %% cut, policy %s%n",
                plan.traceName(), plan.nodes().size(), plan.pods().size(), options.cutPct(), plan.policy());
        Files.createDirectories(workDir);
        Binaries binaries = Binaries.locate(Binaries.E2E_DIR);
        try (ControlPlane cp = ControlPlane.start(ControlPlane.Options.of(workDir, binaries));
                KubernetesClient client = cp.newClient()) {
            Map<String, Node> nodes = createNodes(client, plan, options.dra(), log);
            long block = DraReplay.block(chart);
            if (options.dra()) {
                log.println("cluster-replay: DRA: the chart's DeviceClasses and one ResourceSlice per node");
                DraReplay.publish(client, nodes, block, ChartConfig.deviceClasses(repository));
            }
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
            List<Pod> pods = pods(plan, chart.schedulerName(), options.dra());
            List<ResourceClaim> claims = options.dra() ? claims(plan, block) : List.of();
            if (options.baseline()) { // what it is for: the same harness cost in both streams compared
                log.println("cluster-replay: warming up the harness");
                PodStream.warmUp(client, pods, options.clients());
            }
            Map<String, Double> idle = MeasuredStream.idleRates(cp.pids(), log);
            PodStream.Streamed ours;
            Audit audit;
            Map<String, String> placedOn;
            double retries;
            Map<String, ReplayResult.VerbTime> verbs;
            long[] ledger;
            Map<String, Double> cpu;
            Map<String, Double> cpuAboveIdle;
            try (EgpuProcess extender = startExtender(cp, chart, options)) {
                cp.restartScheduler(ChartConfig.write(
                        schedulerConfig(options, chart, extender.url()), workDir.resolve("replay-scheduler.yaml")));
                DraReplay.createClaims(client, claims);
                if (options.warmExtender() > 0) {
                    log.printf(
                            "cluster-replay: warming up the extender on %d pods, deleted before measuring%n",
                            options.warmExtender());
                    PodStream.warmUpScheduler(client, pods, options.warmExtender(), options.clients());
                }
                ExtenderScrape.Counters before = ExtenderScrape.Counters.read(extender.url());
                log.println("cluster-replay: creating pods");
                MeasuredStream measured = MeasuredStream.run(
                        client, pods, options, pids(cp, extender.process().pid()), log);
                ours = measured.streamed();
                cpu = measured.cpu();
                cpuAboveIdle = measured.aboveIdle(idle);
                ExtenderScrape.Counters after = ExtenderScrape.Counters.read(extender.url());
                verbs = after.verbsSince(before);
                ledger = after.ledgerSince(before);
                retries = ExtenderScrape.filterCallsPerSecond(extender.url(), after, Duration.ofSeconds(10));
                List<Pod> placed = client.pods().inNamespace(NAMESPACE).list().getItems();
                audit = Audit.of(placed, nodes, plan.pods(), holds(client, options, nodes, block));
                placedOn = new LinkedHashMap<>();
                for (Pod p : placed) {
                    String node = p.getSpec().getNodeName();
                    placedOn.put(p.getMetadata().getName(), node == null ? null : ReplayPlan.traceName(node));
                }
            }
            if (ours.bound() == 0) {
                throw new IllegalStateException(
                        "kube-scheduler bound no pod at all; see its log in " + workDir.resolve("logs"));
            }
            List<TracePod> order = ours.inQueueOrder(plan.pods());
            ReplayPlan.Simulated simulator = plan.simulate(order);
            Agreement agreement = Agreement.of(order, simulator.nodes(), placedOn);
            ReplayResult.DecisionOrder decisionOrder = onDecisionOrder(
                    plan, audit, ours, placedOn, workDir.resolve("logs").resolve("kube-scheduler.log"));
            PodStream.Streamed baseline = null;
            Map<String, Double> baselineCpu = Map.of();
            Map<String, Double> baselineCpuAboveIdle = Map.of();
            if (options.baseline()) {
                // What was measured with the extender stands even if the baseline cannot be run.
                log.println(ReplayResult.of(
                                plan,
                                options,
                                audit,
                                ours,
                                simulator.usedMilli(),
                                agreement,
                                retries,
                                null,
                                null,
                                verbs,
                                ledger,
                                cpu,
                                Map.of(),
                                idle,
                                cpuAboveIdle,
                                Map.of(),
                                decisionOrder)
                        .table());
                try {
                    prepareBaseline(cp, client, chart, claims, log);
                    MeasuredStream measured = MeasuredStream.run(client, pods, options, pids(cp, null), log);
                    baseline = measured.streamed();
                    baselineCpu = measured.cpu();
                    baselineCpuAboveIdle = measured.aboveIdle(idle);
                } catch (RuntimeException e) {
                    log.println("cluster-replay: the baseline failed, so it is not measured: " + e.getMessage());
                }
            }
            // Under DRA kube-scheduler's own allocator places the baseline's claims: what it holds is worth knowing.
            Audit baselineAudit = baseline != null && options.dra()
                    ? Audit.of(
                            client.pods().inNamespace(NAMESPACE).list().getItems(),
                            nodes,
                            plan.pods(),
                            holds(client, options, nodes, block))
                    : null;
            log.println(
                    "cluster-replay: pending in the cluster by shape (cards x milli): " + agreement.pendingInCluster());
            log.println("cluster-replay: failed in the simulator by shape: " + agreement.failedInSimulator());
            return ReplayResult.of(
                    plan,
                    options,
                    audit,
                    ours,
                    simulator.usedMilli(),
                    agreement,
                    retries,
                    baseline,
                    baselineAudit,
                    verbs,
                    ledger,
                    cpu,
                    baselineCpu,
                    idle,
                    cpuAboveIdle,
                    baselineCpuAboveIdle,
                    decisionOrder);
        }
    }

    /** The simulator on the order kube-scheduler's cycles placed the bound pods in, as its log tells it. */
    private static ReplayResult.DecisionOrder onDecisionOrder(
            ReplayPlan plan, Audit audit, PodStream.Streamed ours, Map<String, String> placedOn, Path schedulerLog) {
        java.util.Set<String> bound = new java.util.HashSet<>(placedOn.keySet());
        bound.removeIf(name -> placedOn.get(name) == null);
        Map<String, Long> cycles = SchedulingCycles.lastAttempts(schedulerLog, NAMESPACE);
        cycles.keySet().retainAll(bound);
        int unread = bound.size() - cycles.size();
        if (unread > 0) {
            return ReplayResult.DecisionOrder.unknown(
                    "not read: %d bound pods have no scheduling attempt in %s".formatted(unread, schedulerLog));
        }
        List<TracePod> order = ours.inDecisionOrder(plan.pods(), cycles);
        ReplayPlan.Simulated simulated = plan.simulate(order);
        return ReplayResult.DecisionOrder.of(
                plan,
                plan.percentOfCapacity(audit.allocatedMilli()),
                simulated.usedMilli(),
                Agreement.of(order, simulated.nodes(), placedOn));
    }

    private static java.util.function.Function<Pod, io.elasticgpu.api.v1alpha1.PodGrant> holds(
            KubernetesClient client, ReplayOptions options, Map<String, Node> nodes, long block) {
        return options.dra() ? DraReplay.holds(client, NAMESPACE, nodes, block) : Audit::annotated;
    }

    private static Map<String, Node> createNodes(
            KubernetesClient client, ReplayPlan plan, boolean dra, PrintStream log) {
        return createNodes(
                client,
                plan,
                dra ? DraReplay::withMemory : node -> node,
                dra ? ReplayObjects::draNode : ReplayObjects::node,
                log);
    }

    /**
     * One kwok node per node of the plan, named in priority order, as {@code asKube} makes it (how the contender's node
     * agent or device plugin would publish it); waits until every node is {@link FakeGpuNodes#schedulable}: the
     * simulator offers a pod every node, and pods streamed while some were still tainted were sent some 100 nodes
     * short and placed elsewhere.
     *
     * @param asModel what the node is to the audit, from the plan's node
     * @return the nodes by name, as the audit sees them
     */
    public static Map<String, Node> createNodes(
            KubernetesClient client,
            ReplayPlan plan,
            java.util.function.UnaryOperator<Node> asModel,
            java.util.function.BiFunction<String, Node, io.fabric8.kubernetes.api.model.Node> asKube,
            PrintStream log) {
        log.printf("cluster-replay: creating %d kwok nodes%n", plan.nodes().size());
        Map<String, Node> byName = new LinkedHashMap<>();
        for (int rank = 0; rank < plan.nodes().size(); rank++) {
            byName.put(plan.kubeName(rank), asModel.apply(plan.nodes().get(rank)));
        }
        try (var pool = Executors.newFixedThreadPool(8)) {
            byName.forEach((name, node) -> pool.submit(
                    () -> client.nodes().resource(asKube.apply(name, node)).create()));
        }
        long start = System.nanoTime();
        long deadline = start + NODES_SETTLE.toNanos();
        List<io.fabric8.kubernetes.api.model.Node> waiting = unschedulable(client);
        while (!waiting.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "%d of %d nodes were not Ready or still tainted after %d minutes (%s: %s); see"
                                        .formatted(
                                                waiting.size(),
                                                byName.size(),
                                                NODES_SETTLE.toMinutes(),
                                                waiting.getFirst().getMetadata().getName(),
                                                waiting.getFirst().getSpec().getTaints())
                                + " kwok's and kube-controller-manager's logs");
            }
            PodStream.sleep(1000);
            waiting = unschedulable(client);
        }
        log.printf(
                "cluster-replay: every node Ready and untainted after %d s%n",
                Duration.ofNanos(System.nanoTime() - start).toSeconds());
        return byName;
    }

    private static List<io.fabric8.kubernetes.api.model.Node> unschedulable(KubernetesClient client) {
        return client.nodes().list().getItems().stream()
                .filter(n -> !FakeGpuNodes.schedulable(n))
                .toList();
    }

    private static List<Pod> pods(ReplayPlan plan, String schedulerName, boolean dra) {
        List<Pod> pods = new ArrayList<>(plan.pods().size());
        for (int i = 0; i < plan.pods().size(); i++) {
            TracePod p = plan.pods().get(i);
            pods.add(ReplayObjects.pod(p, i, NAMESPACE, schedulerName, dra));
        }
        return pods;
    }

    private static List<ResourceClaim> claims(ReplayPlan plan, long block) {
        return plan.pods().stream()
                .filter(p -> p.ask().needsCards())
                .map(p -> ReplayObjects.claim(p, NAMESPACE, block))
                .toList();
    }

    private static EgpuProcess startExtender(ControlPlane cp, ChartConfig chart, ReplayOptions options) {
        return startExtender(cp, chart, options.policy(), options.extenderFlags(), options.extenderJvm());
    }

    /**
     * The extender with the chart's arguments and JVM options (the policy as asked, flags added), on this control
     * plane. */
    public static EgpuProcess startExtender(ControlPlane cp, ChartConfig chart, String policyName, List<String> flags) {
        return startExtender(cp, chart, policyName, flags, List.of());
    }

    /** The same with JVM options added after the chart's. */
    public static EgpuProcess startExtender(
            ControlPlane cp, ChartConfig chart, String policyName, List<String> flags, List<String> jvm) {
        List<String> jvmOptions = new ArrayList<>(chart.extenderJvm());
        jvmOptions.addAll(jvm);
        List<String> args = new ArrayList<>(chart.extenderArgs());
        int policy = args.indexOf("--policy");
        args.set(policy + 1, policyName);
        args.addAll(flags);
        args.addAll(List.of("--kubeconfig", cp.kubeconfig().toString()));
        return EgpuProcess.launch(
                        "scheduler", args, cp.workDir().resolve("logs").resolve("extender.log"))
                .jvm(jvmOptions)
                .start();
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode schedulerConfig(
            ReplayOptions options, ChartConfig chart, String url) throws IOException {
        if (options.schedulerConfig() == null) {
            return chart.withExtenderAt(url);
        }
        String text = Files.readString(options.schedulerConfig()).replace("${EXTENDER_URL}", url);
        var config = (com.fasterxml.jackson.databind.node.ObjectNode)
                new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                        .readTree(text);
        config.withObject("leaderElection").removeAll().put("leaderElect", false); // one replica, as for the chart's
        return config;
    }

    /** The control plane's components, the extender (when given) and this harness, which creates the pods, by name. */
    private static Map<String, Long> pids(ControlPlane cp, Long extender) {
        Map<String, Long> pids = new LinkedHashMap<>(cp.pids());
        if (extender != null) {
            pids.put("extender", extender);
        }
        pids.put("harness", ProcessHandle.current().pid());
        return pids;
    }

    /**
     * Clears the pods and restarts kube-scheduler without the extender, for the same pods on the same nodes through
     * kube-scheduler alone: no card awareness, the control plane's ceiling.
     */
    private static void prepareBaseline(
            ControlPlane cp, KubernetesClient client, ChartConfig chart, List<ResourceClaim> claims, PrintStream log) {
        log.println("cluster-replay: baseline, the same pods without the extender");
        client.pods().inNamespace(NAMESPACE).withGracePeriod(0).delete();
        while (!client.pods().inNamespace(NAMESPACE).list().getItems().isEmpty()) {
            PodStream.sleep(1000);
        }
        if (!claims.isEmpty()) {
            DraReplay.deleteClaims(client, NAMESPACE);
            DraReplay.createClaims(client, claims);
        }
        cp.restartScheduler(
                ChartConfig.write(chart.withoutExtender(), cp.workDir().resolve("baseline-scheduler.yaml")));
    }
}
