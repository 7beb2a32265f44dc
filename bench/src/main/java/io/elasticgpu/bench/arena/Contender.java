package io.elasticgpu.bench.arena;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.bench.cluster.Audit;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.bench.cluster.ClusterReplay;
import io.elasticgpu.bench.cluster.ReplayObjects;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One system the arena runs the trace through, each in a control plane of its own: how its nodes look (what its node
 * agent or device plugin publishes), how a pod asks the trace's share in its names, the scheduler it runs beside
 * kube-scheduler, and how it records who holds which card (what the audit reads to count cards over capacity).
 */
public sealed interface Contender permits Contender.Elastic, Contender.Hami, Contender.WholeCards {

    /** The name in the table and the JSON. */
    String name();

    /** The node as this contender's node agent or device plugin would publish it. */
    io.fabric8.kubernetes.api.model.Node node(String name, Node node);

    /** The {@code index}th pod of the arrival order, asking {@code trace}'s share in this contender's names. */
    Pod pod(TracePod trace, int index, Stage stage);

    /** Starts the contender's scheduler and points kube-scheduler at it; closing stops it. */
    Running start(ControlPlane cp, KubernetesClient client, Stage stage);

    /**
     * What the contender's own records say of the bound pods, read once.
     *
     * @param overCommitted cards whose holders add up to more than the card
     * @param unaccounted   bound GPU pods the contender keeps no record of (which card they hold): they escape its
     *                      capacity checks
     */
    record Records(int overCommitted, int unaccounted) {}

    /** The audit of {@code pods} by the contender's own records. */
    Records audit(List<Pod> pods, KubernetesClient client, Map<String, Node> nodes, Stage stage);

    /**
     * How long no pod may be bound before scheduling counts as settled. kube-scheduler retries a pod its extender
     * found no node for only on a cluster event or after 5 minutes ({@code podMaxInUnschedulablePodsDuration}); ours
     * decide every pod on its first try, so 20 s without a bind means done.
     */
    default Duration quiet() {
        return Duration.ofSeconds(20);
    }

    /** A started contender: the process whose CPU and memory are its cost, and how to stop it. */
    record Running(long pid, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }

        void closeQuietly() {
            try {
                close();
            } catch (Exception ignored) {
                // already failing: the caller's error says why
            }
        }
    }

    /**
     * Parses a contender's name: elastic, fgd (or another of our policies), either followed by
     * {@value Elastic#HAMI_NAMES} (the same policy given HAMi's pods), hami-NODE-GPU, no-sharing.
     */
    static Contender of(String name) {
        if (name.equals(WholeCards.NAME)) {
            return new WholeCards();
        }
        if (name.startsWith("hami-")) {
            String[] p = name.split("-");
            if (p.length != 3 || !List.of("binpack", "spread").containsAll(List.of(p[1], p[2]))) {
                throw new IllegalArgumentException(
                        "a HAMi contender is hami-NODE_POLICY-GPU_POLICY, each binpack or spread,"
                                + " e.g. hami-binpack-spread (HAMi's default); was \"" + name + "\"");
            }
            return new Hami(p[1], p[2]);
        }
        if (name.endsWith(Elastic.HAMI_NAMES)) {
            return new Elastic(name.substring(0, name.length() - Elastic.HAMI_NAMES.length()), true);
        }
        return new Elastic(name, false);
    }

    /**
     * Elastic GPU as the Helm chart ships it, with the given placement policy; its pods ask in our names, or with
     * {@code hamiNames} the very pods the HAMi contenders get (HAMi's names, which Elastic GPU reads with HAMi's
     * meaning).
     */
    record Elastic(String policy, boolean hamiNames) implements Contender {
        static final String HAMI_NAMES = "-hami-names";

        @Override
        public String name() {
            return hamiNames ? policy + HAMI_NAMES : policy;
        }

        /** Our node agent advertises {@code nvidia.com/gpu} as 100 shares per card beside our own resources. */
        @Override
        public io.fabric8.kubernetes.api.model.Node node(String name, Node node) {
            Quantity shares = new Quantity(Integer.toString(node.cards().size() * 100));
            return new NodeBuilder(ReplayObjects.node(name, node))
                    .editStatus()
                    .addToCapacity(ResourceNames.NVIDIA_GPU, shares)
                    .addToAllocatable(ResourceNames.NVIDIA_GPU, shares)
                    .endStatus()
                    .build();
        }

        @Override
        public Pod pod(TracePod trace, int index, Stage stage) {
            Pod ours = ReplayObjects.pod(
                    trace, index, Stage.NAMESPACE, stage.chart().schedulerName());
            return hamiNames ? Contender.asking(ours, Hami.hamiAsk(trace)) : ours;
        }

        @Override
        public Running start(ControlPlane cp, KubernetesClient client, Stage stage) {
            EgpuProcess extender = ClusterReplay.startExtender(cp, stage.chart(), policy, List.of());
            cp.restartScheduler(ChartConfig.write(
                    stage.chart().withExtenderAt(extender.url()), cp.workDir().resolve("arena-scheduler.yaml")));
            return new Running(extender.process().pid(), extender);
        }

        @Override
        public Records audit(List<Pod> pods, KubernetesClient client, Map<String, Node> nodes, Stage stage) {
            Audit audit = Audit.of(pods, nodes, stage.plan().pods());
            return new Records(audit.overCommittedCards(), audit.unaccounted());
        }
    }

    /**
     * HAMi v2.10.0's scheduler extender with the given node and GPU policies. Its nodes carry what HAMi's device plugin
     * registers ({@link HamiRegistration}) and advertise {@code nvidia.com/gpu} as it does (each card counted
     * {@value HamiRegistration#DEFAULT_SPLIT_COUNT} times); {@link HamiNodeStandIn} plays its device plugin's part.
     */
    record Hami(String nodePolicy, String gpuPolicy) implements Contender {
        @Override
        public String name() {
            return "hami-" + nodePolicy + "-" + gpuPolicy;
        }

        @Override
        public io.fabric8.kubernetes.api.model.Node node(String name, Node node) {
            io.fabric8.kubernetes.api.model.Node kube = ReplayObjects.node(name, node);
            NodeInventory inventory =
                    NodeInventory.fromJson(kube.getMetadata().getAnnotations().get(Annotations.INVENTORY));
            Quantity shares =
                    new Quantity(Integer.toString(node.cards().size() * HamiRegistration.DEFAULT_SPLIT_COUNT));
            return new NodeBuilder(kube)
                    .editMetadata()
                    .addToAnnotations(
                            HamiRegistration.REGISTER,
                            HamiRegistration.register(
                                    HamiRegistration.devices(inventory, HamiRegistration.DEFAULT_SPLIT_COUNT)))
                    .addToAnnotations(
                            HamiRegistration.HANDSHAKE,
                            HamiRegistration.reported(Instant.now(), ZoneId.systemDefault()))
                    .endMetadata()
                    .editStatus()
                    .addToCapacity(ResourceNames.NVIDIA_GPU, shares)
                    .addToAllocatable(ResourceNames.NVIDIA_GPU, shares)
                    .endStatus()
                    .build();
        }

        @Override
        public Pod pod(TracePod trace, int index, Stage stage) {
            return Contender.asking(
                    ReplayObjects.pod(trace, index, Stage.NAMESPACE, HamiScheduler.SCHEDULER_NAME), hamiAsk(trace));
        }

        /**
         * A card fraction f on k cards: {@code nvidia.com/gpu: k} with f of each card's cores and f of its memory (HAMi
         * gives a pod that names no memory all of it, so one pod per card); whole cards: {@code nvidia.com/gpu: k}.
         */
        static Map<String, Quantity> hamiAsk(TracePod trace) {
            Ask podAsk = trace.ask();
            Map<String, Quantity> ask = new HashMap<>();
            if (!podAsk.needsCards()) {
                return ask;
            }
            ask.put(ResourceNames.NVIDIA_GPU, new Quantity(Integer.toString(podAsk.cards())));
            if (!podAsk.wholeCards()) {
                String percent = Integer.toString(ReplayObjects.percent(trace));
                ask.put(ResourceNames.HAMI_GPU_CORES, new Quantity(percent));
                ask.put(ResourceNames.HAMI_GPU_MEMORY_PERCENTAGE, new Quantity(percent));
            }
            return ask;
        }

        @Override
        public Running start(ControlPlane cp, KubernetesClient client, Stage stage) {
            HamiScheduler scheduler = HamiScheduler.start(stage.hamiBinary(), cp, nodePolicy, gpuPolicy);
            try {
                cp.restartScheduler(
                        Files.writeString(cp.workDir().resolve("arena-scheduler.yaml"), scheduler.schedulerConfig()));
            } catch (IOException e) {
                scheduler.close();
                throw new UncheckedIOException(e);
            }
            HamiNodeStandIn standIn = new HamiNodeStandIn(client);
            Running running = new Running(scheduler.pid(), () -> {
                standIn.close();
                scheduler.close();
            });
            // HAMi's filter waits until its first round of node registration is done; pods go in only after it.
            int nodes = client.nodes().list().getItems().size();
            long deadline = System.nanoTime() + java.time.Duration.ofMinutes(15).toNanos();
            while (standIn.nodesAnswered() < nodes) {
                if (System.nanoTime() > deadline) {
                    running.closeQuietly();
                    throw new IllegalStateException(
                            "HAMi's scheduler asked %d of %d nodes for their cards in 15 minutes; see %s"
                                    .formatted(
                                            standIn.nodesAnswered(),
                                            nodes,
                                            cp.workDir().resolve("logs/hami-scheduler.log")));
                }
                io.elasticgpu.bench.cluster.PodStream.sleep(500);
            }
            return running;
        }

        /**
         * HAMi's node lock makes binds to one node fail while another is under way, and the pods whose filter found
         * nothing wait for kube-scheduler's 5-minute flush: settled is 5 minutes and a half without a bind.
         */
        @Override
        public Duration quiet() {
            return Duration.ofSeconds(330);
        }

        /**
         * Cards over capacity by HAMi's own figures (its cores and MiB per card), or by the shares the pods it put
         * there asked (a whole card counting all of it): whichever finds more.
         */
        @Override
        public Records audit(List<Pod> pods, KubernetesClient client, Map<String, Node> nodes, Stage stage) {
            return new Records(
                    Math.max(
                            HamiAudit.overCommitted(pods, client.nodes().list().getItems()),
                            HamiAudit.overAsked(
                                    pods,
                                    pod -> stage.plan()
                                            .pods()
                                            .get(Audit.index(pod))
                                            .ask())),
                    HamiAudit.unaccounted(pods));
        }
    }

    /**
     * No sharing, what a cluster with NVIDIA's device plugin alone gets: each GPU pod takes whole cards
     * ({@code nvidia.com/gpu: ceil(k·f)}), and kube-scheduler places it with its default profile, no extender.
     */
    record WholeCards() implements Contender {
        static final String NAME = "no-sharing";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public io.fabric8.kubernetes.api.model.Node node(String name, Node node) {
            Quantity cards = new Quantity(Integer.toString(node.cards().size()));
            return new NodeBuilder(ReplayObjects.node(name, node))
                    .editStatus()
                    .addToCapacity(ResourceNames.NVIDIA_GPU, cards)
                    .addToAllocatable(ResourceNames.NVIDIA_GPU, cards)
                    .endStatus()
                    .build();
        }

        @Override
        public Pod pod(TracePod trace, int index, Stage stage) {
            Ask podAsk = trace.ask();
            Map<String, Quantity> ask = podAsk.needsCards()
                    ? Map.of(ResourceNames.NVIDIA_GPU, new Quantity(Long.toString(wholeCards(podAsk))))
                    : Map.of();
            return Contender.asking(ReplayObjects.pod(trace, index, Stage.NAMESPACE, "default-scheduler"), ask);
        }

        /** ceil(k·f): the whole cards a pod of k shares of f takes when cards cannot be shared. */
        static long wholeCards(Ask ask) {
            return Math.ceilDiv(ask.totalMilli(), io.elasticgpu.core.model.Card.WHOLE);
        }

        @Override
        public Running start(ControlPlane cp, KubernetesClient client, Stage stage) {
            cp.restartScheduler(null);
            return new Running(cp.pids().get("kube-scheduler"), () -> {});
        }

        /** kube-scheduler's own count: a node whose pods ask more {@code nvidia.com/gpu} than it has cards. */
        @Override
        public Records audit(List<Pod> pods, KubernetesClient client, Map<String, Node> nodes, Stage stage) {
            Map<String, Long> asked = new HashMap<>();
            for (Pod p : pods) {
                if (p.getSpec().getNodeName() != null) {
                    for (Container c : p.getSpec().getContainers()) {
                        Quantity q = c.getResources().getLimits() == null
                                ? null
                                : c.getResources().getLimits().get(ResourceNames.NVIDIA_GPU);
                        if (q != null) {
                            asked.merge(
                                    p.getSpec().getNodeName(),
                                    q.getNumericalAmount().longValue(),
                                    Long::sum);
                        }
                    }
                }
            }
            return new Records(
                    (int) asked.entrySet().stream()
                            .mapToLong(e -> Math.max(
                                    0,
                                    e.getValue() - nodes.get(e.getKey()).cards().size()))
                            .sum(),
                    0);
        }
    }

    /** Elastic GPU's own resource names, which the other contenders' pods do not ask. */
    List<String> OURS =
            List.of(ResourceNames.GPU, ResourceNames.GPU_MEMORY, ResourceNames.GPU_CORE, ResourceNames.GPU_COUNT);

    /** The pod with Elastic GPU's resources replaced by {@code ask}, in requests and limits alike. */
    private static Pod asking(Pod ours, Map<String, Quantity> ask) {
        for (Container c : ours.getSpec().getContainers()) {
            for (Map<String, Quantity> m : java.util.Arrays.asList(
                    c.getResources().getRequests(), c.getResources().getLimits())) {
                if (m != null) {
                    m.keySet().removeAll(OURS);
                }
            }
            if (!ask.isEmpty()) {
                c.getResources().getRequests().putAll(ask);
                if (c.getResources().getLimits() == null) {
                    c.getResources().setLimits(new HashMap<>());
                }
                c.getResources().getLimits().putAll(ask);
            }
        }
        return ours;
    }
}
