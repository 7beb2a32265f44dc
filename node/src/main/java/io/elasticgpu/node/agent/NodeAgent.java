package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.node.allocation.Allocator;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.allocation.Grant;
import io.elasticgpu.node.allocation.PlanAllocator;
import io.elasticgpu.node.allocation.ReplicaAllocator;
import io.elasticgpu.node.allocation.TruthRecorder;
import io.elasticgpu.node.deviceplugin.AdvertisedResource;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.deviceplugin.PluginService;
import io.elasticgpu.node.deviceplugin.PluginSupervisor;
import io.elasticgpu.node.deviceplugin.PodResourcesClient;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthWatch;
import io.elasticgpu.node.metrics.AgentMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

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

    private NodeAgent(AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock, AgentMetrics metrics) {
        this.hardware = backend.discover();
        this.health = new CardHealth(hardware.gpus().size(), config.health(), clock);
        this.metrics = metrics;
        metrics.watchCards(hardware, health);
        this.resources = advertised(config, hardware);
        DeviceCatalog catalog = new DeviceCatalog(hardware, resources);
        this.kubelet = new PodResourcesClient(config.podResourcesSocket(),
                resources.stream().map(AdvertisedResource::name).collect(Collectors.toSet()));
        Allocator allocator;
        Supplier<Map<ContainerKey, Grant>> truth;
        java.util.function.BooleanSupplier pending;
        if (config.mode() == AgentConfig.Mode.SLICES) {
            PlanAllocator plans = new PlanAllocator(cluster.pods(), kubelet, catalog, hardware.topology());
            allocator = plans;
            truth = metrics.recording(plans::reconcile);
            pending = plans::truthPending;
        } else {
            ReplicaAllocator replicas = new ReplicaAllocator(kubelet, catalog, hardware.topology(), health::healthy);
            allocator = replicas;
            truth = metrics.recording(replicas::reconcile);
            pending = () -> true;
        }
        this.recorder = new TruthRecorder(truth, pending, cluster.pods(), cluster.truth());
        Allocator signalling = new Signalling(metrics.metered(allocator), recorder);
        ContainerEnvironment env = new ContainerEnvironment(config.mps(), config.mpsPipeDir().toString(), config.aliyunUnitMib());
        List<PluginService> services = resources.stream()
                .map(r -> new PluginService(r, catalog, signalling, env, health::healthy)).toList();
        cluster.publish(hardware, health::healthy);
        this.supervisor = new PluginSupervisor(config.pluginDir(), services);
        metrics.watchPlugins(supervisor);
        this.watch = new HealthWatch(backend, health, () -> {
            supervisor.healthChanged();
            cluster.publish(hardware, health::healthy);
        });
        LOG.info("node agent started node={} backend={} cards={} mode={} resources={}", config.nodeName(), backend.name(),
                hardware.gpus().size(), config.mode(), resources.stream().map(AdvertisedResource::name).toList());
    }

    /**
     * @throws io.elasticgpu.node.discovery.DiscoveryException when the cards cannot be discovered
     * @throws IllegalArgumentException when the configuration cannot work on this hardware (the message says why)
     */
    public static NodeAgent start(AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock) {
        return start(config, backend, cluster, clock, new AgentMetrics(config.nodeName()));
    }

    /** As {@link #start(AgentConfig, GpuBackend, Cluster, InstantSource)}, reporting into {@code metrics}. */
    public static NodeAgent start(AgentConfig config, GpuBackend backend, Cluster cluster, InstantSource clock,
                                  AgentMetrics metrics) {
        return new NodeAgent(config, backend, cluster, clock, metrics);
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

    @Override
    public void close() {
        watch.close();
        supervisor.close();
        recorder.close();
        kubelet.close();
    }

    /** Tells the recorder after every allocation, so that the truth reaches the pod within milliseconds. */
    private record Signalling(Allocator delegate, TruthRecorder recorder) implements Allocator {
        @Override
        public Grant allocate(String resource, List<String> ids) {
            Grant g = delegate.allocate(resource, ids);
            recorder.allocated();
            return g;
        }

        @Override
        public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
            return delegate.preferred(resource, available, mustInclude, size);
        }
    }
}
