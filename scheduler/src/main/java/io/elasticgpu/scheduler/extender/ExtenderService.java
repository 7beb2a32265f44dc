package io.elasticgpu.scheduler.extender;

import io.elasticgpu.api.v1alpha1.DraApi;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.watch.Informers;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.binding.ClusterApi;
import io.elasticgpu.scheduler.binding.KubernetesClusterApi;
import io.elasticgpu.scheduler.binding.LedgerTidying;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.cache.DisruptionBudgets;
import io.elasticgpu.scheduler.decision.Decisions;
import io.elasticgpu.scheduler.decision.HostWorkload;
import io.elasticgpu.scheduler.decision.PolicyProvider;
import io.elasticgpu.scheduler.requeue.Requeue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running extender: node, pod, claim and disruption budget informers feeding the cache, the policy, the binder on
 * the real API, and the HTTP server. Serving starts at once; {@code /readyz} and the verbs wait for the informers'
 * first lists.
 */
public final class ExtenderService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExtenderService.class);

    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    /** Null where DRA is not served. */
    private final SharedIndexInformer<ResourceClaim> claims;
    /** What preemption weighs victims against. */
    private final SharedIndexInformer<PodDisruptionBudget> budgets;

    private final ExtenderServer server;
    private final AtomicBoolean synced;

    private ExtenderService(
            SharedIndexInformer<Node> nodes,
            SharedIndexInformer<Pod> pods,
            SharedIndexInformer<ResourceClaim> claims,
            SharedIndexInformer<PodDisruptionBudget> budgets,
            ExtenderServer server,
            AtomicBoolean synced) {
        this.nodes = nodes;
        this.pods = pods;
        this.claims = claims;
        this.budgets = budgets;
        this.server = server;
        this.synced = synced;
    }

    public static ExtenderService start(KubernetesClient client, ExtenderConfig config) {
        return start(client, config, new KubernetesClusterApi(client, config.ledgerNamespace()));
    }

    static ExtenderService start(KubernetesClient client, ExtenderConfig config, ClusterApi api) {
        config.models(); // a bad table stops the start, naming the file's line, before any informer starts
        ClusterCache cache = new ClusterCache(
                pod -> PodAsks.asksGpu(pod, config.units()), config.units().memoryBlockMib());
        AtomicBoolean synced = new AtomicBoolean();
        SharedIndexInformer<Node> nodeInformer = Informers.ours(client.nodes().runnableInformer(0));
        nodeInformer.addEventHandler(
                handler(cache::upsertNode, n -> cache.deleteNode(n.getMetadata().getName())));
        SharedIndexInformer<Pod> podInformer =
                Informers.ours(client.pods().inAnyNamespace().runnableInformer(0));
        podInformer.addEventHandler(handler(cache::upsertPod, cache::deletePod));
        // Where DRA is served, claims hold cards too (one ledger per card) and DRA pods are placed from their asks.
        SharedIndexInformer<ResourceClaim> claimInformer = DraApi.served(client)
                ? Informers.ours(
                        client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0))
                : null;
        if (claimInformer != null) {
            claimInformer.addEventHandler(handler(cache::upsertClaim, cache::deleteClaim));
        }
        // The preempt verb prefers victims no PodDisruptionBudget protects, as kube-scheduler's preemption does.
        SharedIndexInformer<PodDisruptionBudget> budgetInformer = Informers.ours(
                client.policy().v1().podDisruptionBudget().inAnyNamespace().runnableInformer(0));
        boolean dra = claimInformer != null;
        ExtenderServer server = serve(
                config,
                cache,
                api,
                synced::get,
                () -> DisruptionBudgets.of(budgetInformer.getStore().list()),
                Optional.of(() -> new CacheDebug.Lists(
                        client.nodes().list().getItems(),
                        client.pods().inAnyNamespace().list().getItems(),
                        dra
                                ? client.resources(ResourceClaim.class)
                                        .inAnyNamespace()
                                        .list()
                                        .getItems()
                                : List.of())));
        CompletableFuture.allOf(
                        nodeInformer.start().toCompletableFuture(),
                        podInformer.start().toCompletableFuture(),
                        // Without the right to read budgets the verbs still serve; preemption then weighs none.
                        budgetInformer.start().toCompletableFuture().exceptionally(e -> {
                            LOG.warn(
                                    "cannot read PodDisruptionBudgets ({}): preemption weighs none; grant list and"
                                            + " watch on poddisruptionbudgets (the chart does)",
                                    e.getMessage());
                            return null;
                        }),
                        claimInformer == null
                                ? CompletableFuture.completedFuture(null)
                                : claimInformer.start().toCompletableFuture())
                .thenRun(() -> {
                    synced.set(true);
                    LOG.info(
                            "caches synced: nodes={} pods={}",
                            nodeInformer.getStore().list().size(),
                            podInformer.getStore().list().size());
                });
        LOG.info(
                "extender listening on {}:{} (metrics and probes also on {}) policy={} ledgers in namespace {}",
                config.host(),
                server.port(),
                config.metricsListen().map(Object::toString).orElse("no other address"),
                config.policy(),
                config.ledgerNamespace());
        return new ExtenderService(nodeInformer, podInformer, claimInformer, budgetInformer, server, synced);
    }

    /**
     * The verbs and the HTTP server over a cache the caller keeps fed, binding through {@code api}. The informers
     * of {@link #start} are one feeder; the benchmarks feed the cache directly.
     */
    public static ExtenderServer serve(
            ExtenderConfig config, ClusterCache cache, ClusterApi api, BooleanSupplier ready) {
        return serve(config, cache, api, ready, () -> DisruptionBudgets.NONE, Optional.empty());
    }

    /**
     * As {@link #serve(ExtenderConfig, ClusterCache, ClusterApi, BooleanSupplier)}, preemption weighing
     * {@code budgets}, {@code /debug/cache} comparing with {@code lists} where given.
     */
    static ExtenderServer serve(
            ExtenderConfig config,
            ClusterCache cache,
            ClusterApi api,
            BooleanSupplier ready,
            Supplier<DisruptionBudgets> budgets,
            Optional<Supplier<CacheDebug.Lists>> lists) {
        PodAsks.Units units = config.units();
        ModelTable models = config.models();
        PolicyProvider policy = new PolicyProvider(
                config.policy(),
                () -> cache.workload().gpuPods(),
                () -> HostWorkload.of(cache, units),
                () -> cache.snapshot().workloadPodCount(),
                units,
                InstantSource.system(),
                config.workloadRefresh());
        Binder binder = new Binder(api, cache, policy, units, InstantSource.system(), config.staleReservation());
        ExtenderMetrics metrics = new ExtenderMetrics(cache, binder);
        Requeue requeue = new Requeue(api, InstantSource.system(), Requeue.WINDOW, Requeue.INTERVAL);
        requeue.every(Requeue.TICK);
        LedgerTidying tidying = new LedgerTidying(binder, LedgerTidying.INTERVAL);
        cache.onFreed(node -> {
            requeue.freed(node);
            tidying.left(node);
        });
        Verbs verbs = new Verbs(
                cache,
                new Decisions(policy, config.weights()),
                binder,
                units,
                metrics,
                ready,
                requeue,
                new Verbs.Deciding(config.decideInFilter(), config.hold(), System::nanoTime),
                models,
                budgets);
        CacheDebug debug = new CacheDebug(cache, pod -> PodAsks.asksGpu(pod, units), units.memoryBlockMib(), lists);
        return ExtenderServer.start(config, verbs, metrics, ready, debug).alongside(tidying);
    }

    public int port() {
        return server.port();
    }

    public boolean ready() {
        return synced.get();
    }

    @Override
    public void close() {
        server.close();
        nodes.close();
        pods.close();
        budgets.close();
        if (claims != null) {
            claims.close();
        }
    }

    private static <T> ResourceEventHandler<T> handler(
            java.util.function.Consumer<T> upsert, java.util.function.Consumer<T> delete) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                upsert.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                upsert.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                delete.accept(obj);
            }
        };
    }
}
