package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraApi;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUSpec;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.watch.Informers;
import io.elasticgpu.api.watch.OnChange;
import io.elasticgpu.controller.claims.ClaimBook;
import io.elasticgpu.controller.claims.ClaimKey;
import io.elasticgpu.controller.claims.ClaimState;
import io.elasticgpu.controller.claims.ClaimStates;
import io.elasticgpu.controller.claims.Holding;
import io.elasticgpu.controller.claims.StaticBinding;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running controller: informers on pods, nodes, ElasticGPUs, claims and classes (and DRA's ResourceClaims where
 * the API server serves them); any event schedules one
 * level-triggered sync that recomputes {@link Desired} and the {@link ClaimStates} from the informers' caches and
 * applies the difference. Syncs run one at a time on one thread, coalesced (a burst of events is one sync), and
 * again every {@code resyncPeriod} and one second after a failed one. Conflicts (a cache behind the API server) are
 * not errors: the informer's event brings the next sync.
 */
public final class ElasticGPUController implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ElasticGPUController.class);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final KubernetesClient client;
    private final Duration resyncPeriod;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "egpu-controller-sync");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean queued = new AtomicBoolean();
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicReference<SyncReport> firstSync = new AtomicReference<>();
    /** Set once every informer has its first list; no sync before. */
    private volatile boolean listed;

    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private SharedIndexInformer<Pod> pods;
    private SharedIndexInformer<Node> nodes;
    private SharedIndexInformer<ElasticGPU> gpus;
    private SharedIndexInformer<ElasticGPUClaim> claims;
    private SharedIndexInformer<ElasticGPUClass> classes;
    private SharedIndexInformer<ResourceClaim> draClaims; // null where the API server serves no DRA
    private final ClaimTemplates templates;
    private final SyncWrites writes; // used on the sync thread only

    private volatile boolean closed;

    /** @param resyncPeriod how often to sync without an event (drift made while no event came) */
    public ElasticGPUController(KubernetesClient client, Duration resyncPeriod) {
        this.client = client;
        this.resyncPeriod = resyncPeriod;
        this.templates = new ClaimTemplates(client);
        this.writes = new SyncWrites(client);
    }

    /** Starts the informers, waits for their first lists, then syncs. Returns at once after that. */
    public synchronized void start() {
        pods = inform(client.pods().inAnyNamespace().runnableInformer(0));
        nodes = inform(client.nodes().runnableInformer(0));
        gpus = inform(client.resources(ElasticGPU.class).runnableInformer(0));
        claims = inform(client.resources(ElasticGPUClaim.class).inAnyNamespace().runnableInformer(0));
        classes = inform(client.resources(ElasticGPUClass.class).runnableInformer(0));
        if (DraApi.served(client)) {
            draClaims = inform(
                    client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0));
        }
        informers.forEach(i -> i.start().toCompletableFuture().join());
        listed = true;
        long period = resyncPeriod.toMillis();
        loop.scheduleWithFixedDelay(this::trigger, period, period, TimeUnit.MILLISECONDS);
        trigger();
    }

    private <T extends HasMetadata> SharedIndexInformer<T> inform(SharedIndexInformer<T> informer) {
        Informers.ours(informer).addEventHandler(new OnChange<>(this::trigger));
        informers.add(informer);
        return informer;
    }

    /**
     * Asks for a sync; many asks before it runs make one. Never blocks (called on informer threads). Nothing syncs
     * before every informer has its first list: the pods' events come while the ElasticGPUs are still being listed,
     * and a sync then would take every ElasticGPU for missing (a new leader tried to create all 1,085 in the soak)
     * or, with DRA's claims not listed yet, delete theirs.
     */
    public void trigger() {
        if (!closed && listed && queued.compareAndSet(false, true)) {
            loop.execute(this::sync);
        }
    }

    /** True from construction until {@link #close()}: while this replica leads. */
    public boolean running() {
        return !closed;
    }

    /** What the first sync found to do, once it has finished (a new leader's first sync shows its start's cost). */
    public Optional<SyncReport> firstSync() {
        return Optional.ofNullable(firstSync.get());
    }

    /** How many syncs have finished, failed ones included (for tests, logs and metrics). */
    public long syncs() {
        return syncs.get();
    }

    private void sync() {
        queued.set(false);
        if (closed) {
            return;
        }
        try {
            syncOnce();
        } catch (RuntimeException e) {
            LOG.warn("sync failed, retrying in {}: {}", RETRY, e.toString());
            loop.schedule(this::trigger, RETRY.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            syncs.incrementAndGet();
        }
    }

    /**
     * One sync. A write that fails (other than a conflict) does not stop the others: every ElasticGPU and claim is
     * tried, so that one object the API server keeps refusing cannot hold back every claim's status; the failures
     * are then thrown together, and the sync runs again after {@link #RETRY}.
     */
    private void syncOnce() {
        long started = System.nanoTime();
        writes.begin();
        ClaimBook book =
                new ClaimBook(claims.getStore().list(), classes.getStore().list());
        writes.attempt(
                "make the ResourceClaimTemplates of DRA-served claims",
                () -> templates.ensure(
                        claims.getStore().list(), classes.getStore().list()));
        Map<String, ElasticGPU> managed = new TreeMap<>();
        gpus.getStore().list().stream()
                .filter(ManagedLabels::isManaged)
                .forEach(g -> managed.put(g.getMetadata().getName(), g));
        Map<String, DesiredGpu> actual = new TreeMap<>();
        managed.forEach((name, g) -> actual.put(name, DesiredGpu.from(g)));

        Map<String, NodeInventory> inventories = inventories();
        Map<String, DesiredGpu> desired = Desired.of(
                pods.getStore().list(),
                draClaims == null ? List.of() : draClaims.getStore().list(),
                inventories,
                book,
                actual.values());
        GpuPlan plan = GpuPlan.between(desired, actual);
        plan.create().forEach(writes::create);
        plan.update().forEach(want -> writes.update(managed.get(want.name()), want));
        plan.delete().forEach(writes::delete);

        List<Holding> holdings = new ArrayList<>(desired.values().stream()
                .map(DesiredGpu::holding)
                .flatMap(Optional::stream)
                .toList());
        List<ElasticGPU> preCreated = gpus.getStore().list().stream()
                .filter(g -> !ManagedLabels.isManaged(g))
                .toList();
        preCreated.stream()
                .map(DesiredGpu::from)
                .map(DesiredGpu::holding)
                .flatMap(Optional::stream)
                .forEach(holdings::add);
        Map<ClaimKey, ClaimState> states = new TreeMap<>(ClaimStates.of(book, holdings, inventories));
        bindPreCreated(book, states, preCreated);
        states.forEach((key, state) -> writes.claim(book, key, state));
        SyncReport report = writes.report(plan, (System.nanoTime() - started) / 1_000_000);
        firstSync.compareAndSet(null, report);
        if (report.wrote()) {
            LOG.info("sync {}: {}", syncs.get() + 1, report);
        }
        writes.throwIfFailed();
    }

    /**
     * Static binding of pre-created ElasticGPUs (not made by this controller): binds Immediate claims to Available
     * ones ({@link StaticBinding}); marks one Bound whose claimRef is set but status is not (a half-done bind); and
     * one whose claim is gone Released (it was made by a person, so it is never deleted here).
     */
    private void bindPreCreated(ClaimBook book, Map<ClaimKey, ClaimState> states, List<ElasticGPU> preCreated) {
        Map<String, ElasticGPU> byName = new TreeMap<>();
        List<StaticBinding.Offer> offers = new ArrayList<>();
        for (ElasticGPU gpu : preCreated) {
            byName.put(gpu.getMetadata().getName(), gpu);
            DesiredGpu read = DesiredGpu.from(gpu);
            if (read.claimRef() == null && read.phase() == Phase.Available) {
                Map<String, Long> capacity = new TreeMap<>();
                if (gpu.getSpec() != null && gpu.getSpec().getCapacity() != null) {
                    gpu.getSpec().getCapacity().forEach((k, v) -> capacity.put(k, StaticBinding.whole(v)));
                }
                offers.add(new StaticBinding.Offer(read.name(), capacity));
            } else if (read.claimRef() != null && read.phase() != Phase.Released) {
                Optional<ElasticGPUClaim> claim = book.claim(read.claimRef().key());
                boolean gone = claim.isEmpty()
                        || read.claimRef().uid() != null
                                && !read.claimRef()
                                        .uid()
                                        .equals(claim.get().getMetadata().getUid());
                Phase phase = gone ? Phase.Released : Phase.Bound;
                if (phase != read.phase()) {
                    writes.phase(gpu, phase);
                }
            }
        }
        StaticBinding.of(book, states, offers).forEach((key, name) -> {
            ElasticGPUClaim claim = book.claim(key).orElseThrow();
            ElasticGPU gpu = writes.copyOf(byName.get(name));
            ElasticGPUSpec.ClaimReference ref = new ElasticGPUSpec.ClaimReference();
            ref.setNamespace(key.namespace());
            ref.setName(key.name());
            ref.setUid(claim.getMetadata().getUid());
            gpu.getSpec().setClaimRef(ref);
            if (writes.bind(gpu, key)) {
                states.put(key, ClaimState.bound(name));
            }
        });
    }

    private Map<String, NodeInventory> inventories() {
        Map<String, NodeInventory> inventories = new TreeMap<>();
        for (Node node : nodes.getStore().list()) {
            Map<String, String> annotations = node.getMetadata().getAnnotations();
            String json = annotations == null ? null : annotations.get(Annotations.INVENTORY);
            if (json != null) {
                try {
                    inventories.put(node.getMetadata().getName(), NodeInventory.fromJson(json));
                } catch (IllegalArgumentException e) {
                    LOG.debug("node {}: {}", node.getMetadata().getName(), e.getMessage());
                }
            }
        }
        return inventories;
    }
    /** Stops syncing and the informers; the ElasticGPUs stay as they are. */
    @Override
    public synchronized void close() {
        closed = true;
        loop.shutdownNow();
        informers.forEach(SharedIndexInformer::close);
        try {
            loop.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
