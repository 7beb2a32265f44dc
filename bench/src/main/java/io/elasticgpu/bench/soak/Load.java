package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The soak's users: pods of random shapes, each deleted a random lifetime after it was bound (or, not bound within
 * {@link #PATIENCE} of its creation, deleted then: its user gave up), created whenever the GPU the live pods ask falls
 * below the fill level, so that the cluster stays 80-100 % full while pods come and go. A user's patience keeps the
 * pending pods of the bursts from piling up over the run: the pods the API holds stay level, and a component's memory
 * over the hour can be read without the growth of a queue in it. A pod whose slice an ElasticGPUClaim asks
 * is created after its claim and must come back with the claim's resources (the webhook); the claim goes with it.
 * Watches its pods for create-to-bound times.
 */
final class Load implements AutoCloseable {

    /** Create while the live pods ask less than this share of the cluster's GPU. */
    private static final double FILL = 0.95;

    /** A pod not bound this long after its creation is deleted by its user; above {@link Auditor#FITS_BUT_PENDING}. */
    static final Duration PATIENCE = Duration.ofMinutes(5);

    private record Live(long createdAt, long milli, Duration lifetime) {}

    private final KubernetesClient client;
    private final Violations violations;
    private final PodShapes shapes;
    private final SplittableRandom random;
    private final long capacityMilli;
    private final Duration shortest;
    private final Duration longest;
    private final Map<String, Live> live = new ConcurrentHashMap<>();
    private final Map<String, Long> boundAt = new ConcurrentHashMap<>();
    /** Where each pod was first seen bound, and the cards it was first seen to hold: neither may change. */
    private final Map<String, String> boundTo = new ConcurrentHashMap<>();

    private final Map<String, PodGrant> heldFirst = new ConcurrentHashMap<>();
    /** When each bind was first seen, nanoseconds, in order: the failovers' next bind. */
    private final List<Long> binds = java.util.Collections.synchronizedList(new ArrayList<>());
    /** The binds of pods that ask our GPU resources: those the extender places (CPU-only pods only filter by it). */
    private final List<Long> gpuBinds = java.util.Collections.synchronizedList(new ArrayList<>());
    /** When each pod through a claim came back from the webhook, nanoseconds. */
    private final List<Long> admissions = java.util.Collections.synchronizedList(new ArrayList<>());

    private final List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicInteger deleted = new AtomicInteger();
    private final AtomicInteger gaveUp = new AtomicInteger();
    private final AtomicInteger failedCreates = new AtomicInteger();
    private final AtomicInteger claimed = new AtomicInteger();
    private final SharedIndexInformer<Pod> informer;

    Load(
            KubernetesClient client,
            PodShapes shapes,
            long seed,
            long capacityMilli,
            Duration run,
            Violations violations) {
        this.client = client;
        this.violations = violations;
        this.shapes = shapes;
        this.random = new SplittableRandom(seed);
        this.capacityMilli = capacityMilli;
        this.shortest = run.dividedBy(12);
        this.longest = run.dividedBy(3);
        this.informer = client.pods().inNamespace(SoakCluster.NAMESPACE).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                seen(pod);
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
                seen(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                live.remove(pod.getMetadata().getName());
                boundTo.remove(pod.getMetadata().getName());
                heldFirst.remove(pod.getMetadata().getName());
            }
        });
    }

    private void seen(Pod pod) {
        String name = pod.getMetadata().getName();
        String node = pod.getSpec().getNodeName();
        Live l = live.get(name);
        if (l != null && node != null && !node.isEmpty() && boundAt.putIfAbsent(name, System.nanoTime()) == null) {
            long now = System.nanoTime();
            latencies.add(now - l.createdAt());
            binds.add(now);
            if (PodAsks.asksGpu(pod, PodAsks.Units.DEFAULT)) {
                gpuBinds.add(now);
            }
        }
        boundOnce(name, node, Auditor.allocation(pod));
    }

    /** A pod's node and cards, once seen, stay: a second bind or a second grant to a bound pod is a violation. */
    private void boundOnce(String name, String node, PodGrant grant) {
        if (node != null && !node.isEmpty()) {
            String first = boundTo.putIfAbsent(name, node);
            if (first != null && !first.equals(node)) {
                violations.add("pod bound twice", name + " on " + first + ", then on " + node);
            }
        }
        if (grant != null) {
            PodGrant first = heldFirst.putIfAbsent(name, grant);
            if (first != null && !first.equals(grant)) {
                violations.add("grant of a bound pod changed", name + ": " + first + ", then " + grant);
            }
        }
    }

    /** The first bind seen after {@code nanos}, if any. */
    java.util.OptionalLong firstBindAfter(long nanos) {
        return firstAfter(binds, nanos);
    }

    /** The first bind of a pod asking our GPU resources seen after {@code nanos}, if any. */
    java.util.OptionalLong firstGpuBindAfter(long nanos) {
        return firstAfter(gpuBinds, nanos);
    }

    /** The first pod through a claim the webhook admitted after {@code nanos}, if any. */
    java.util.OptionalLong firstAdmissionAfter(long nanos) {
        return firstAfter(admissions, nanos);
    }

    private static java.util.OptionalLong firstAfter(List<Long> times, long nanos) {
        synchronized (times) {
            return times.stream()
                    .mapToLong(Long::longValue)
                    .filter(t -> t > nanos)
                    .min();
        }
    }

    /** Pods created and not yet bound, now. */
    int pending() {
        return (int) live.keySet().stream().filter(n -> !boundAt.containsKey(n)).count();
    }

    /** One step of the users: delete the pods whose time is up, then create until the fill level. */
    void step() {
        long now = System.nanoTime();
        for (var e : live.entrySet()) {
            Long bound = boundAt.get(e.getKey());
            if (bound != null
                    ? now - bound > e.getValue().lifetime().toNanos()
                    : now - e.getValue().createdAt() > PATIENCE.toNanos()) {
                if (delete(e.getKey()) && bound == null) {
                    gaveUp.incrementAndGet();
                }
            }
        }
        long asked = live.values().stream().mapToLong(Live::milli).sum();
        for (int n = 0; asked < FILL * capacityMilli && n < 50; n++) {
            asked += create();
        }
    }

    /** {@code pods} pods at once, whatever the fill level. */
    void burst(int pods) {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < pods; i++) {
                pool.submit(this::create);
            }
        }
    }

    private long create() {
        String name;
        PodShapes.Shaped shaped;
        Duration lifetime;
        synchronized (random) {
            name = "p-" + created.incrementAndGet();
            shaped = shapes.next(name, random);
            lifetime =
                    shortest.plusMillis(random.nextLong(longest.minus(shortest).toMillis() + 1));
        }
        live.put(name, new Live(System.nanoTime(), shaped.milli(), lifetime));
        try {
            if (shaped.claim() != null) {
                client.resource(shaped.claim()).create();
            }
            Pod pod = client.pods().resource(shaped.pod()).create();
            if (shaped.claim() != null) {
                claimed.incrementAndGet();
                admissions.add(System.nanoTime());
                if (!PodAsks.asksGpu(pod, PodAsks.Units.DEFAULT)) {
                    violations.add(
                            "claim not written into its pod", name + " was admitted without its claim's resources");
                }
            }
            return shaped.milli();
        } catch (KubernetesClientException e) {
            // The API server may be restarting (a fault): the user would try again later; the pod never was.
            live.remove(name);
            failedCreates.incrementAndGet();
            return 0;
        }
    }

    /** Whether the pod (and its claim) is deleted; false when the API refused, to be tried again at the next step. */
    private boolean delete(String name) {
        try {
            client.pods()
                    .inNamespace(SoakCluster.NAMESPACE)
                    .withName(name)
                    .withGracePeriod(0)
                    .delete();
            client.resources(ElasticGPUClaim.class)
                    .inNamespace(SoakCluster.NAMESPACE)
                    .withName(name)
                    .delete();
            live.remove(name);
            deleted.incrementAndGet();
            return true;
        } catch (KubernetesClientException e) {
            return false;
        }
    }

    /** Deletes every pod the users made and waits until the API has none left. */
    void drain(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!client.pods()
                .inNamespace(SoakCluster.NAMESPACE)
                .list()
                .getItems()
                .isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "pods still in namespace " + SoakCluster.NAMESPACE + " after " + timeout);
            }
            // again each time: a create still in flight when the users stopped may land after a delete
            client.pods().inNamespace(SoakCluster.NAMESPACE).withGracePeriod(0).delete();
            client.resources(ElasticGPUClaim.class)
                    .inNamespace(SoakCluster.NAMESPACE)
                    .delete();
            Soak.sleep(Duration.ofSeconds(1));
        }
    }

    int created() {
        return created.get() - failedCreates.get();
    }

    /** Pods created through a claim. */
    int claimed() {
        return claimed.get();
    }

    int bound() {
        return boundAt.size();
    }

    int deleted() {
        return deleted.get();
    }

    /** Pods deleted by their users unbound, after {@link #PATIENCE}. */
    int gaveUp() {
        return gaveUp.get();
    }

    /** Pods created and not yet deleted, bound or not, now. */
    int live() {
        return live.size();
    }

    /** Create-to-bound of every bound pod, nanoseconds, sorted. */
    long[] latencies() {
        synchronized (latencies) {
            return latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        }
    }

    @Override
    public void close() {
        informer.close();
    }
}
