package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.deviceplugin.DeviceCatalog;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.dra.CdiSpecs;
import io.elasticgpu.node.dra.Checkpoint;
import io.elasticgpu.node.dra.ClaimIsolation;
import io.elasticgpu.node.dra.ClaimPreparation;
import io.elasticgpu.node.dra.ClaimRef;
import io.elasticgpu.node.dra.ClaimSource;
import io.elasticgpu.node.dra.PreparedClaim;
import io.elasticgpu.node.dra.Rebuilt;
import io.elasticgpu.node.draplugin.DraHealthService;
import io.elasticgpu.node.draplugin.DraPluginServer;
import io.elasticgpu.node.draplugin.DraPluginService;
import io.elasticgpu.node.health.CardHealth;
import io.elasticgpu.node.health.HealthWatch;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.isolation.MpsAccess;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.resourceslice.SliceDevices;
import io.elasticgpu.node.usage.UsageMonitor;
import io.elasticgpu.node.usage.UsageWatch;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent in DRA mode: the same discovery and health as {@link NodeAgent}, but the cards are offered as a
 * ResourceSlice and handed out through kubelet's DRA API. It never starts the device plugin, so this node advertises
 * no extended resources of ours and kube-scheduler cannot place a device-plugin pod on its cards; the node's
 * {@code elasticgpu.io/gpu.api} label says {@code dra}. Each card is offered through exactly one API at a time: in
 * device-plugin mode the agent deletes the node's ResourceSlice before it advertises anything (and the extender counts
 * allocated claims on their cards); in DRA mode the cards that pods of the device plugin path still hold (the node was
 * switched while they ran) are tainted {@code NoSchedule} in the slice until those pods end.
 */
public final class DraNodeAgent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DraNodeAgent.class);
    /** The reason of the event that says which prepared claims a starting agent rebuilt. */
    public static final String REBUILT = "PreparedClaimsRebuilt";
    /** How often prepared claims that no pod on the node holds any more are unprepared. */
    static final java.time.Duration PRUNE_EVERY = java.time.Duration.ofMinutes(5);

    private final Hardware hardware;
    private final CardHealth health;
    private final ClaimPreparation preparation;
    private final DraPluginServer server;
    private final DraHealthService healthService;
    private final HealthWatch watch;
    private final DraCluster cluster;
    private final long memoryBlockMib;
    private final Object publishing = new Object();
    private Set<Integer> devicePluginCards = Set.of();
    private final Optional<MpsIsolation> mps;
    private final Optional<UsageWatch> usage;
    private final java.util.concurrent.ScheduledExecutorService pruning =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    Thread.ofVirtual().name("egpu-dra-prune").factory());

    private DraNodeAgent(
            AgentConfig config,
            DraConfig dra,
            GpuBackend backend,
            DraCluster cluster,
            InstantSource clock,
            AgentMetrics metrics) {
        this.hardware = backend.discover();
        this.health = CardHealth.of(hardware.gpus(), config.health(), clock);
        metrics.watchCards(hardware, health);
        ContainerEnvironment env = new ContainerEnvironment(config.aliyunUnitMib());
        this.mps = config.isolation().mode() == IsolationConfig.Mode.MPS
                ? Optional.of(MpsIsolation.start(
                        config.isolation(),
                        hardware,
                        backend,
                        clock,
                        new IsolationNotices(metrics, cluster::warn, cluster::evict, true, cluster::podViews)))
                : Optional.empty();
        ClaimSource claims = cluster.claims(hardware);
        this.preparation = new ClaimPreparation(
                claims,
                Checkpoint.open(dra.checkpoint()),
                new CdiSpecs(dra.cdiDir()),
                hardware,
                new DeviceCatalog(hardware, List.of()),
                env,
                config.nodeName(),
                mps.<ClaimIsolation>map(DraNodeAgent::claimIsolation).orElse(ClaimIsolation.NONE));
        rebuild(claims, cluster, dra.checkpoint());
        pruning.scheduleWithFixedDelay(
                () -> prune(claims),
                PRUNE_EVERY.toSeconds(),
                PRUNE_EVERY.toSeconds(),
                java.util.concurrent.TimeUnit.SECONDS);
        mps.ifPresent(m -> metrics.watchDaemons(() -> m.servers().daemons()));
        mps.ifPresent(m -> NodeAgent.announce(m.status(), cluster::isolation, metrics));
        mps.ifPresent(m -> m.heldBy(() -> {
            Set<String> prepared = new HashSet<>();
            preparation.prepared().forEach(p -> prepared.add(p.claim().uid()));
            return share -> prepared.contains(share.held());
        }));
        this.healthService = new DraHealthService(config.nodeName(), hardware, health, clock);
        this.cluster = cluster;
        this.memoryBlockMib = config.memoryBlockMib();
        cluster.watchDevicePluginPods(this::podsChanged);
        publish();
        this.server = DraPluginServer.start(
                DraNames.DRIVER,
                dra.pluginDir(),
                dra.registrationDir(),
                new DraPluginService(preparation),
                healthService);
        this.watch = new HealthWatch(backend, health, this::publish);
        this.usage = !backend.measuresUsage() || config.usageEvery().isZero()
                ? Optional.empty()
                : Optional.of(new UsageWatch(
                        new UsageMonitor(
                                backend,
                                hardware,
                                Path.of("/proc"),
                                cluster::podViews,
                                () -> mps.map(MpsIsolation::owners).orElse(java.util.Map.of()),
                                clock),
                        config.usageEvery(),
                        new UsageReport(metrics, cluster::publishUsage, cluster::warn, clock)));
        LOG.info(
                "node agent started in DRA mode node={} backend={} cards={} driver={} prepared claims={}",
                config.nodeName(),
                backend.name(),
                hardware.gpus().size(),
                DraNames.DRIVER,
                preparation.prepared().size());
    }

    /**
     * Takes every claim that pods on this node hold as prepared, before kubelet can ask for anything: those the
     * checkpoint lacks (it was deleted, or lost with the disk) are prepared again from the API and said in a Normal
     * event on the node ({@value #REBUILT}), so that no card they hold is handed out again.
     */
    private void rebuild(ClaimSource claims, DraCluster cluster, Path checkpoint) {
        List<ClaimRef> held;
        try {
            held = claims.held();
        } catch (io.elasticgpu.node.dra.ClaimException e) {
            throw new IllegalStateException(
                    "cannot read which claims the pods on this node hold (%s), so the prepared claims the checkpoint %s"
                                    .formatted(e.getMessage(), checkpoint)
                            + " may lack are unknown; the agent stops rather than hand out their cards again",
                    e);
        }
        Rebuilt rebuilt = preparation.rebuild(held);
        if (rebuilt.nothing()) {
            LOG.info("the DRA checkpoint holds all {} claims that pods on this node hold", rebuilt.known());
            return;
        }
        LOG.warn("{}", rebuilt.message());
        cluster.notice(REBUILT, rebuilt.message());
    }

    /** Unprepares the prepared claims no pod on this node holds any more ({@link ClaimPreparation#prune}). */
    private void prune(ClaimSource claims) {
        try {
            List<PreparedClaim> before = preparation.prepared();
            if (before.isEmpty()) {
                return;
            }
            List<ClaimRef> pruned = preparation.prune(before, claims.held());
            if (!pruned.isEmpty()) {
                LOG.info("unprepared {} claims that no pod on this node holds any more: {}", pruned.size(), pruned);
            }
        } catch (RuntimeException e) {
            LOG.warn("cannot tell which prepared claims pods on this node still hold: {}", e.getMessage());
        }
    }

    /**
     * Each request of a prepared claim held as a share of its own; the claim's uid says it is still held. A claim may
     * be used by several pods, so its share's {@code /dev/shm} is always its own (a pod's own volume cannot be known).
     */
    private static ClaimIsolation claimIsolation(MpsIsolation mps) {
        return new ClaimIsolation() {
            @Override
            public Optional<MpsAccess> isolate(ClaimRef claim, String request, List<Share> shares, int processes) {
                return mps.share(
                        MpsIsolation.claimKey(claim.uid(), request),
                        claim.namespace() + "/" + claim.name(),
                        claim.uid(),
                        shares,
                        processes,
                        false);
            }

            @Override
            public void release(ClaimRef claim) {
                mps.releaseClaim(claim.uid());
            }
        };
    }

    /** The node's slice, labels and inventory, and the health kubelet is streamed, from the cards' state now. */
    private void publish() {
        synchronized (publishing) {
            publish(cluster.devicePluginCards());
        }
    }

    /** @param held the cards device-plugin pods hold now, tainted in the slice */
    private void publish(Set<Integer> held) {
        synchronized (publishing) {
            devicePluginCards = held;
            cluster.publishSlice(SliceDevices.devices(hardware, health, memoryBlockMib, devicePluginCards));
            cluster.publish(hardware, health);
            healthService.changed();
        }
    }

    /** A pod on the node changed: the slice is written again only if the cards device plugin pods hold did. */
    private void podsChanged() {
        synchronized (publishing) {
            Set<Integer> now = cluster.devicePluginCards();
            if (!now.equals(devicePluginCards)) {
                LOG.info(
                        "cards held by pods of the device plugin path: {} (were {}); tainted {} in the ResourceSlice",
                        now,
                        devicePluginCards,
                        DraNames.TAINT_DEVICE_PLUGIN);
                publish(now);
            }
        }
    }

    /**
     * @throws io.elasticgpu.node.discovery.DiscoveryException when the cards cannot be discovered
     * @throws IllegalStateException                           when the checkpoint cannot be read (the message says what
     * to do)
     */
    public static DraNodeAgent start(
            AgentConfig config,
            DraConfig dra,
            GpuBackend backend,
            DraCluster cluster,
            InstantSource clock,
            AgentMetrics metrics) {
        return new DraNodeAgent(config, dra, backend, cluster, clock, metrics);
    }

    public Hardware hardware() {
        return hardware;
    }

    public CardHealth health() {
        return health;
    }

    public ClaimPreparation preparation() {
        return preparation;
    }

    /** Whether kubelet took the registration. */
    public boolean registered() {
        return server.registered();
    }

    /** Isolation by MPS, when it is on. */
    public Optional<MpsIsolation> isolation() {
        return mps;
    }

    @Override
    public void close() {
        pruning.shutdownNow();
        usage.ifPresent(UsageWatch::close);
        mps.ifPresent(MpsIsolation::close);
        watch.close();
        healthService.close();
        server.close();
    }
}
