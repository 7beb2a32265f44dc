package io.elasticgpu.node.agent;

import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthWatch;
import io.elasticgpu.node.inventory.InventoryPublisher;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.metrics.MetricsServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node agent, started the one way both {@code egpu node-agent} and the local cluster's demo start it: its
 * metrics server (bound first, so that a taken port leaves nothing behind), its view of the API server, and the
 * agent of the configuration's {@link AgentConfig.Api}, exactly one of them, since a card offered through two APIs
 * would be counted twice. {@link #close} ends them in the reverse order; the GPU backend and the client stay the
 * caller's.
 */
public final class NodeAgentService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgentService.class);

    /** What was started, to close in this order: the agent first (it removes kubelet's sockets), the cluster last. */
    private final List<AutoCloseable> parts;

    private final Optional<MetricsServer> metrics;
    private final Optional<NodeAgent> devicePlugin;

    private NodeAgentService(
            List<AutoCloseable> parts, Optional<MetricsServer> metrics, Optional<NodeAgent> devicePlugin) {
        this.parts = parts;
        this.metrics = metrics;
        this.devicePlugin = devicePlugin;
    }

    /**
     * Starts the agent of {@code config.api()} on the cards of {@code gpus}, against the API server of {@code client}.
     *
     * @throws io.elasticgpu.node.discovery.DiscoveryException when the cards cannot be discovered
     * @throws IllegalArgumentException                        when the configuration cannot work on this hardware
     * @throws java.io.UncheckedIOException                    when the metrics address cannot be bound
     */
    public static NodeAgentService start(KubernetesClient client, AgentConfig config, GpuBackend gpus) {
        InstantSource clock = InstantSource.system();
        return switch (config.api()) {
            case DEVICE_PLUGIN ->
                start(
                        config,
                        () -> new KubernetesCluster(client, config),
                        (cluster, metrics) -> NodeAgent.start(config, gpus, cluster, clock, metrics));
            case DRA ->
                start(
                        config,
                        () -> new KubernetesDraCluster(client, config.nodeName(), config.units()),
                        (cluster, metrics) -> DraNodeAgent.start(config, config.dra(), gpus, cluster, clock, metrics));
            case NONE ->
                start(
                        config,
                        () -> () -> {},
                        (nothing, metrics) -> Publishing.start(
                                new InventoryPublisher(client, config.nodeName()), config, gpus, clock));
        };
    }

    /**
     * The device-plugin agent on {@code cluster}, which the service closes with it (tests, with a cluster of their
     * own). */
    static NodeAgentService start(AgentConfig config, GpuBackend gpus, Cluster cluster, InstantSource clock) {
        return start(config, () -> cluster, (c, metrics) -> NodeAgent.start(config, gpus, c, clock, metrics));
    }

    private static <C extends AutoCloseable> NodeAgentService start(
            AgentConfig config, Supplier<C> clusters, Agents<C> agents) {
        AgentMetrics metrics = new AgentMetrics(config.nodeName());
        Optional<MetricsServer> server = config.metricsListen().map(address -> MetricsServer.start(address, metrics));
        List<AutoCloseable> started = new ArrayList<>();
        server.ifPresent(started::add);
        try {
            C cluster = clusters.get();
            started.add(cluster);
            AutoCloseable agent = agents.start(cluster, metrics);
            started.addFirst(agent);
            LOG.info(
                    "node agent of {} serving {}; metrics on {}",
                    config.nodeName(),
                    config.api(),
                    server.map(s -> "port " + s.port()).orElse("no address"));
            return new NodeAgentService(
                    started, server, agent instanceof NodeAgent n ? Optional.of(n) : Optional.empty());
        } catch (RuntimeException e) {
            closeAll(started);
            throw e;
        }
    }

    /** The port metrics are served on, if anywhere. */
    public OptionalInt metricsPort() {
        return metrics.map(s -> OptionalInt.of(s.port())).orElse(OptionalInt.empty());
    }

    /** The device-plugin agent, with {@link AgentConfig.Api#DEVICE_PLUGIN}. */
    public Optional<NodeAgent> devicePlugin() {
        return devicePlugin;
    }

    @Override
    public void close() {
        closeAll(parts);
    }

    private static void closeAll(List<AutoCloseable> parts) {
        for (AutoCloseable part : parts) {
            try {
                part.close();
            } catch (Exception e) {
                LOG.warn("closing {}: {}", part.getClass().getSimpleName(), e.getMessage());
            }
        }
    }

    /** Starts the agent of one API on the cluster view made for it. */
    @FunctionalInterface
    private interface Agents<C> {
        AutoCloseable start(C cluster, AgentMetrics metrics);
    }

    /**
     * {@link AgentConfig.Api#NONE}: the node's inventory published once and again on every health change, as the
     * agent of either API publishes it, and nothing offered to a kubelet.
     */
    private record Publishing(HealthWatch watch) implements AutoCloseable {

        static Publishing start(
                InventoryPublisher publisher, AgentConfig config, GpuBackend gpus, InstantSource clock) {
            Hardware hw = gpus.discover();
            CardHealth health = CardHealth.of(hw.gpus(), config.health(), clock);
            publisher.publish(hw, health);
            return new Publishing(new HealthWatch(gpus, health, () -> publisher.publish(hw, health)));
        }

        @Override
        public void close() {
            watch.close();
        }
    }
}
