package io.elasticgpu.node.metrics;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.AllocationException;
import io.elasticgpu.node.allocation.Allocator;
import io.elasticgpu.node.allocation.ContainerGrant;
import io.elasticgpu.node.allocation.ContainerKey;
import io.elasticgpu.node.deviceplugin.PluginSupervisor;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The node agent's Prometheus metrics, all named {@code egpu_node_agent_*}. Allocate calls are recorded by
 * {@link #metered}; what each card holds by {@link #recording}, each time the agent reconciles kubelet's records
 * (every two seconds, and right after an allocation); cards and plugins are read at scrape time from what
 * {@link #watchCards} and {@link #watchPlugins} were given. Created before the agent, so that the HTTP server can
 * bind (and fail) before the agent touches kubelet; metrics of parts not yet watched are simply absent.
 */
public final class AgentMetrics {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram allocateSeconds = Histogram.builder()
            .name("egpu_node_agent_allocate_seconds")
            .help("Time to answer kubelet's Allocate for one container, by resource and outcome (ok, refused, error)")
            .labelNames("resource", "outcome")
            .classicOnly()
            .classicUpperBounds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)
            .register(registry);
    private final Counter allocateCalls = Counter.builder()
            .name("egpu_node_agent_allocate_calls_total")
            .help("kubelet's Allocate calls for one container, by resource and outcome (ok, refused, error)")
            .labelNames("resource", "outcome")
            .register(registry);
    private final Counter isolationEvents = Counter.builder()
            .name("egpu_node_agent_isolation_events_total")
            .help("What holding shares to their limits did: GpuShareDaemonRestarted (an MPS daemon started again),"
                    + " GpuShareProcessEnded (a CUDA process beyond its share's count ended), GpuShareBypassed (a"
                    + " process used a card held through MPS outside MPS), GpuShareBypassEvicted (its pod, caught"
                    + " twice, evicted), GpuShareBypassEvictionRefused (that eviction refused), GpuShareExceeded (a"
                    + " container used more than its share)")
            .labelNames("node", "reason")
            .register(registry);
    private final String node;
    private volatile Supplier<Integer> mpsDaemons = () -> 0;
    private volatile String[] isolation = {"none", "", ""};
    private volatile NodeUsage usage;
    private volatile Hardware hardware;
    private volatile CardHealth health;
    private volatile PluginSupervisor plugins;
    private volatile Held held = new Held(new long[0], new int[0]);

    /** Memory and compute the pods on this node hold on each card, as last reconciled with kubelet's records. */
    private record Held(long[] memoryMib, int[] milli) {}

    /** @param node this node's name, the {@code node} label of the per-card metrics (to join the extender's) */
    public AgentMetrics(String node) {
        this.node = node;
        GaugeWithCallback.builder()
                .name("egpu_node_agent_cards")
                .help("This node's cards by health")
                .labelNames("node", "state")
                .callback(cb -> {
                    Hardware hw = hardware;
                    CardHealth h = health;
                    if (hw != null && h != null) {
                        long healthy = hw.gpus().stream()
                                .filter(g -> h.healthy(g.index()))
                                .count();
                        cb.call(healthy, node, "healthy");
                        cb.call(hw.gpus().size() - healthy, node, "unhealthy");
                    }
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_card_memory_allocated_mib")
                .help("GPU memory the pods on this node hold on a card, from kubelet's records")
                .labelNames("node", "card", "uuid")
                .callback(cb ->
                        eachCard((g, memory, milli) -> cb.call(memory, node, Integer.toString(g.index()), g.uuid())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_card_core_allocated_percent")
                .help("Compute the pods on this node hold on a card, percent, from kubelet's records")
                .labelNames("node", "card", "uuid")
                .callback(cb -> eachCard(
                        (g, memory, milli) -> cb.call(milli / 10.0, node, Integer.toString(g.index()), g.uuid())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_plugin_registered")
                .help("1 when the resource's device plugin is registered with the running kubelet, else 0")
                .labelNames("resource")
                .callback(cb -> eachPlugin(r -> cb.call(r.registered() ? 1 : 0, r.resource())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_mps_daemons")
                .help("MPS control daemons the agent runs: one per share (layout per-share), per card (per-card), or"
                        + " one for the node (v3)")
                .callback(cb -> cb.call(mpsDaemons.get()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_isolation")
                .help("1, labelled with how the node holds shares to their limits: layout (none, per-share,"
                        + " per-card, v3), memory (what holds a share's memory: mps, mps+dmem, environment) and"
                        + " bypass (what stops a process going around MPS: driver, agent)")
                .labelNames("node", "layout", "memory", "bypass")
                .callback(cb -> {
                    String[] now = isolation;
                    cb.call(1, node, now[0], now[1], now[2]);
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_container_gpu_memory_used_mib")
                .help("GPU memory a container's processes hold on a card, as NVML reports it (context included)")
                .labelNames("node", "namespace", "pod", "container", "card")
                .callback(cb -> eachUsage(u -> cb.call(
                        u.memoryMib(), node, u.namespace(), u.pod(), u.container(), Integer.toString(u.card()))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_container_gpu_sm_percent")
                .help("SM utilization NVML attributes to a container's processes on a card (under MPS, its share's"
                        + " server); absent where NVML names none of them")
                .labelNames("node", "namespace", "pod", "container", "card")
                .callback(cb -> eachUsage(u -> {
                    if (u.smPercent() >= 0) {
                        cb.call(u.smPercent(), node, u.namespace(), u.pod(), u.container(), Integer.toString(u.card()));
                    }
                }))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_container_gpu_processes")
                .help("A container's processes with memory on a card")
                .labelNames("node", "namespace", "pod", "container", "card")
                .callback(cb -> eachUsage(u -> cb.call(
                        u.processes(), node, u.namespace(), u.pod(), u.container(), Integer.toString(u.card()))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_node_agent_card_memory_unattributed_mib")
                .help("GPU memory on a card held by processes of no known pod (the host's, MPS servers)")
                .labelNames("node", "card")
                .callback(cb -> {
                    NodeUsage now = usage;
                    if (now != null) {
                        now.unattributed().forEach(o -> cb.call(o.memoryMib(), node, Integer.toString(o.card())));
                    }
                })
                .register(registry);
        CounterWithCallback.builder()
                .name("egpu_node_agent_kubelet_reregistrations_total")
                .help("Registrations of a device plugin after its first (kubelet restarted or deleted the plugin's "
                        + "socket)")
                .labelNames("resource")
                .callback(cb -> eachPlugin(r -> cb.call(Math.max(0, r.registrations() - 1), r.resource())))
                .register(registry);
    }

    /** The cards whose health and holdings to report. */
    public void watchCards(Hardware cards, CardHealth cardHealth) {
        this.hardware = cards;
        this.health = cardHealth;
    }

    /** The plugins whose registration to report. */
    public void watchPlugins(PluginSupervisor supervisor) {
        this.plugins = supervisor;
    }

    /** The latest measurement of what containers use, for the usage gauges. */
    public void usage(NodeUsage measured) {
        this.usage = measured;
    }

    private void eachUsage(java.util.function.Consumer<NodeUsage.ContainerUsage> visitor) {
        NodeUsage now = usage;
        if (now != null) {
            now.containers().forEach(visitor);
        }
    }

    /** Counts one thing isolation did, by the reason its event carries. */
    public void isolationEvent(String reason) {
        isolationEvents.labelValues(node, reason).inc();
    }

    /** Where the number of MPS daemons is read from. */
    /** How the node holds shares to their limits, for {@code egpu_node_agent_isolation}. */
    public void isolation(String layout, String memory, String bypass) {
        this.isolation = new String[] {layout, memory, bypass};
    }

    public void watchDaemons(Supplier<Integer> count) {
        this.mpsDaemons = count;
    }

    /** {@code allocator}, timing and counting every {@code allocate}: refused is an AllocationException. */
    public Allocator metered(Allocator allocator) {
        return new Metered(allocator);
    }

    /** {@code grants}, remembering what each card holds each time it is read. */
    public Supplier<Map<ContainerKey, ContainerGrant>> recording(Supplier<Map<ContainerKey, ContainerGrant>> grants) {
        return () -> {
            Map<ContainerKey, ContainerGrant> now = grants.get();
            held = sum(now.values().stream().flatMap(g -> g.shares().stream()).toList());
            return now;
        };
    }

    /** The agent's metrics, served by {@link MetricsServer}. */
    public PrometheusRegistry registry() {
        return registry;
    }

    private Held sum(List<Share> shares) {
        Hardware hw = hardware;
        int cards = hw == null ? 0 : hw.gpus().size();
        long[] memory = new long[cards];
        int[] milli = new int[cards];
        for (Share s : shares) {
            if (s.card() >= 0 && s.card() < cards) {
                memory[s.card()] += s.memoryMib();
                milli[s.card()] += s.milli();
            }
        }
        return new Held(memory, milli);
    }

    private interface CardVisitor {
        void visit(Gpu gpu, long memoryMib, int milli);
    }

    private void eachCard(CardVisitor visitor) {
        Hardware hw = hardware;
        Held h = held;
        if (hw == null) {
            return;
        }
        for (Gpu g : hw.gpus()) {
            int i = g.index();
            boolean known = i >= 0 && i < h.memoryMib().length;
            visitor.visit(g, known ? h.memoryMib()[i] : 0, known ? h.milli()[i] : 0);
        }
    }

    private void eachPlugin(java.util.function.Consumer<PluginSupervisor.Registration> visitor) {
        PluginSupervisor p = plugins;
        if (p != null) {
            p.registrations().forEach(visitor);
        }
    }

    private void observe(String resource, String outcome, long startNanos) {
        allocateSeconds.labelValues(resource, outcome).observe((System.nanoTime() - startNanos) / 1e9);
        allocateCalls.labelValues(resource, outcome).inc();
    }

    /** Times {@code allocate}; {@code preferred} is a hint kubelet may ignore, so it is not measured. */
    private final class Metered implements Allocator {
        private final Allocator delegate;

        Metered(Allocator delegate) {
            this.delegate = delegate;
        }

        @Override
        public ContainerGrant allocate(String resource, List<String> ids) {
            long start = System.nanoTime();
            String outcome = "error";
            try {
                ContainerGrant g = delegate.allocate(resource, ids);
                outcome = "ok";
                return g;
            } catch (AllocationException e) {
                outcome = "refused";
                throw e;
            } finally {
                observe(resource, outcome, start);
            }
        }

        @Override
        public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
            return delegate.preferred(resource, available, mustInclude, size);
        }
    }
}
