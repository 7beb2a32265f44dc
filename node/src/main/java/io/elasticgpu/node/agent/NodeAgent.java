package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.Allocator;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.allocation.NodePod;
import io.elasticgpu.node.allocation.PlanAllocator;
import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.ReplicaAllocator;
import io.elasticgpu.node.allocation.TruthRecorder;
import io.elasticgpu.node.deviceplugin.AdvertisedResource;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.deviceplugin.DevicePlugin;
import io.elasticgpu.node.deviceplugin.MigDevicePlugin;
import io.elasticgpu.node.deviceplugin.PluginService;
import io.elasticgpu.node.deviceplugin.PluginSupervisor;
import io.elasticgpu.node.deviceplugin.PodResourcesClient;
import io.elasticgpu.node.deviceplugin.ShareIsolation;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthWatch;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.isolation.MpsAccess;
import io.elasticgpu.node.isolation.MpsException;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.usage.PodView;
import io.elasticgpu.node.usage.UsageMonitor;
import io.elasticgpu.node.usage.UsageWatch;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node agent: discovers the cards, publishes them, serves a device plugin per resource, allocates, records the
 * truth in pods and watches health. Data flows one way: discovery → inventory → allocation.
 */
public final class NodeAgent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final Hardware hardware;
    private final CardHealth health;
    private final PodResourcesClient kubelet;
    private final TruthRecorder recorder;
    private final PluginSupervisor supervisor;
    private final HealthWatch watch;
    private final List<AdvertisedResource> resources;
    private final AgentMetrics metrics;
    private final Optional<MpsIsolation> mps;
    private final Optional<UsageWatch> usage;

    private NodeAgent(
            AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock, AgentMetrics metrics) {
        this.hardware = backend.discover();
        this.health = CardHealth.of(hardware.gpus(), config.health(), clock);
        this.metrics = metrics;
        metrics.watchCards(hardware, health);
        this.resources = advertised(config, hardware);
        DeviceCatalog catalog = new DeviceCatalog(hardware, resources);
        this.kubelet = new PodResourcesClient(
                config.podResourcesSocket(),
                resources.stream().map(AdvertisedResource::name).collect(Collectors.toSet()));
        Allocator allocator;
        Supplier<Map<ContainerKey, ContainerGrant>> truth;
        java.util.function.BooleanSupplier pending;
        PlanAllocator plans = null;
        if (config.mode() == AgentConfig.Mode.SLICES) {
            plans = new PlanAllocator(cluster.pods(), kubelet, catalog, hardware.topology());
            allocator = plans;
            truth = metrics.recording(plans::reconcile);
            pending = plans::truthPending;
            PlanAllocator started = plans;
            Thread.ofVirtual().name("egpu-held-at-start").start(() -> sayWhatIsHeld(started, cluster));
        } else {
            ReplicaAllocator replicas = new ReplicaAllocator(kubelet, catalog, hardware.topology(), health::healthy);
            allocator = replicas;
            truth = metrics.recording(replicas::reconcile);
            pending = () -> true;
        }
        this.recorder = new TruthRecorder(truth, pending, cluster.pods(), cluster.truth());
        Allocator signalling = new Signalling(metrics.metered(allocator), recorder);
        ContainerEnvironment env = new ContainerEnvironment(config.aliyunUnitMib());
        this.mps = startIsolation(config, backend, cluster, clock);
        ShareIsolation isolation = mps.<ShareIsolation>map(m -> grant -> isolate(m, grant, cluster.pods()))
                .orElse(ShareIsolation.NONE);
        List<DevicePlugin> services = new ArrayList<>();
        resources.forEach(
                r -> services.add(new PluginService(r, catalog, signalling, env, isolation, health::healthy)));
        if (config.compatibility()) {
            services.addAll(MigDevicePlugin.of(hardware, health::quiet)); // NVIDIA's mixed strategy
        }
        cluster.publish(hardware, health);
        this.usage = watchUsage(config, backend, cluster, clock);
        this.supervisor = new PluginSupervisor(config.pluginDir(), services);
        metrics.watchPlugins(supervisor);
        this.watch = new HealthWatch(backend, health, () -> {
            supervisor.healthChanged();
            cluster.publish(hardware, health);
        });
        LOG.info(
                "node agent started node={} backend={} cards={} mode={} resources={}",
                config.nodeName(),
                backend.name(),
                hardware.gpus().size(),
                config.mode(),
                services.stream().map(DevicePlugin::resourceName).toList());
    }

    /**
     * @throws io.elasticgpu.node.discovery.DiscoveryException when the cards cannot be discovered
     * @throws IllegalArgumentException when the configuration cannot work on this hardware (the message says why)
     */
    public static NodeAgent start(AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock) {
        return start(config, backend, cluster, clock, new AgentMetrics(config.nodeName()));
    }

    /** As {@link #start(AgentConfig, GpuBackend, Cluster, InstantSource)}, reporting into {@code metrics}. */
    public static NodeAgent start(
            AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock, AgentMetrics metrics) {
        return new NodeAgent(config, backend, cluster, clock, metrics);
    }

    /**
     * Posts on the node what a starting agent found held ({@link RebuiltHolds}); nothing when no container holds a
     * card. Run once, beside the start: it waits for kubelet's records as the first call would.
     */
    static void sayWhatIsHeld(PlanAllocator plans, Cluster cluster) {
        Map<ContainerKey, List<io.elasticgpu.api.v1alpha1.PodGrant.Share>> held;
        try {
            held = plans.held();
        } catch (RuntimeException e) {
            LOG.warn("cannot tell which containers hold cards at start: {}", e.getMessage());
            return;
        }
        if (held.isEmpty()) {
            LOG.info("no container holds cards of this node at start");
            return;
        }
        String message = RebuiltHolds.message(held);
        LOG.info("{}", message);
        cluster.notice(RebuiltHolds.REASON, message);
    }

    /** Measures what containers use, when the backend can tell (NVML) and the interval is not zero. */
    private Optional<UsageWatch> watchUsage(
            AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock) {
        if (!backend.measuresUsage() || config.usageEvery().isZero()) {
            return Optional.empty();
        }
        UsageMonitor monitor = new UsageMonitor(
                backend,
                hardware,
                Path.of("/proc"),
                () -> cluster.pods().pods().stream().map(NodeAgent::view).toList(),
                () -> mps.map(MpsIsolation::owners).orElse(Map.of()),
                clock);
        return Optional.of(new UsageWatch(
                monitor, config.usageEvery(), new UsageReport(metrics, cluster::publishUsage, cluster::warn, clock)));
    }

    /** A pod as usage sees it: its containers' runtime ids and the memory each was granted on each card. */
    static PodView view(NodePod p) {
        Map<String, Map<Integer, Long>> granted = new HashMap<>();
        p.containers()
                .forEach(c -> p.planFor(c.name())
                        .forEach(s -> granted.computeIfAbsent(c.name(), k -> new HashMap<>())
                                .merge(s.card(), s.memoryMib(), Long::sum)));
        return new PodView(p.uid(), p.namespace(), p.name(), p.containerIds(), granted);
    }

    private Optional<MpsIsolation> startIsolation(
            AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock) {
        if (config.isolation().mode() != IsolationConfig.Mode.MPS) {
            return Optional.empty();
        }
        MpsIsolation.Notices notices = new IsolationNotices(
                metrics,
                cluster::warn,
                cluster::evict,
                false,
                () -> cluster.pods().pods().stream().map(NodeAgent::view).toList());
        MpsIsolation m = MpsIsolation.start(config.isolation(), hardware, backend, clock, notices);
        m.heldBy(() -> held(kubelet.list(), cluster.pods().pods()));
        metrics.watchDaemons(() -> m.servers().daemons());
        announce(m.status(), cluster::isolation, metrics);
        return Optional.of(m);
    }

    /** Says how the node holds shares, in its label, annotation and metrics. */
    static void announce(
            MpsIsolation.Status status, java.util.function.BiConsumer<String, String> node, AgentMetrics metrics) {
        node.accept(status.label(), status.json());
        metrics.isolation(status.layout().flag(), status.memory(), status.bypass());
    }

    /**
     * Whether a device-plugin share is still held: kubelet still records its container (a share's {@code held} is its
     * answer's first resource and smallest device id, {@link ContainerGrant#answerId}, which kubelet keeps in its
     * records while
     * the container lives), or the API still shows its holder's pod holding cards on this node. Either is enough, so
     * that a kubelet restarting (its records briefly empty) ends no daemon a running pod uses.
     */
    static Predicate<MpsShare> held(Map<ContainerKey, Map<String, List<String>>> records, List<NodePod> pods) {
        Set<String> held = new HashSet<>();
        records.values()
                .forEach(byResource ->
                        byResource.forEach((resource, ids) -> ids.forEach(id -> held.add(resource + " " + id))));
        Set<String> alive = new HashSet<>();
        pods.forEach(p -> alive.add(p.namespace() + "/" + p.name() + "/"));
        return share -> held.contains(share.held()) || alive.stream().anyMatch(share.holder()::startsWith);
    }

    /**
     * A grant held through MPS, with the process count its pod declares, and with the share's own {@code /dev/shm}
     * unless the container mounts one of its pod's; empty for grants of no answer of this run.
     */
    private static Optional<MpsAccess> isolate(MpsIsolation mps, ContainerGrant grant, PodSource pods) {
        if (grant.answerId().isEmpty()) {
            return Optional.empty();
        }
        ContainerKey c = grant.container();
        Optional<NodePod> pod = pods.pods().stream()
                .filter(p -> p.namespace().equals(c.namespace()) && p.name().equals(c.pod()))
                .findFirst();
        Optional<String> declared = pod.flatMap(NodePod::processes);
        boolean ownShm = pod.map(p -> p.ownShm().contains(c.container())).orElse(false);
        try {
            int processes = MpsLimits.processes(
                    declared.map(v -> Map.of(MpsLimits.PROCESSES_ANNOTATION, v)).orElse(Map.of()));
            return mps.share(
                    MpsIsolation.deviceKey(grant.answerId()),
                    c.toString(),
                    grant.answerId(),
                    grant.shares(),
                    processes,
                    ownShm);
        } catch (IllegalArgumentException | MpsException e) {
            throw new AllocationException("cannot hold %s to its share with MPS: %s".formatted(c, e.getMessage()));
        }
    }

    /** The configured resources, less compatibility names whose device list kubelet could not take. */
    static List<AdvertisedResource> advertised(AgentConfig config, Hardware hw) {
        List<AdvertisedResource> out = new ArrayList<>();
        for (AdvertisedResource r : config.resources()) {
            var problem = DeviceCatalog.tooLarge(hw, r);
            if (problem.isPresent() && !r.name().startsWith(ResourceNames.GPU)) {
                LOG.warn("not advertising {}: {}", r.name(), problem.get());
                continue;
            }
            out.add(r);
        }
        return out;
    }

    public Hardware hardware() {
        return hardware;
    }

    public CardHealth health() {
        return health;
    }

    public List<AdvertisedResource> resources() {
        return resources;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    /** Whether every plugin is registered with the current kubelet. */
    public boolean registered() {
        return supervisor.registered();
    }

    /** Isolation by MPS, when it is on. */
    public Optional<MpsIsolation> isolation() {
        return mps;
    }

    @Override
    public void close() {
        usage.ifPresent(UsageWatch::close);
        mps.ifPresent(MpsIsolation::close);
        watch.close();
        supervisor.close();
        recorder.close();
        kubelet.close();
    }

    /** Tells the recorder after every allocation, so that the truth reaches the pod within milliseconds. */
    private record Signalling(Allocator delegate, TruthRecorder recorder) implements Allocator {
        @Override
        public ContainerGrant allocate(String resource, List<String> ids) {
            ContainerGrant g = delegate.allocate(resource, ids);
            recorder.allocated();
            return g;
        }

        @Override
        public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
            return delegate.preferred(resource, available, mustInclude, size);
        }
    }
}
