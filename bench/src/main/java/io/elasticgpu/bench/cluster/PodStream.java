package io.elasticgpu.bench.cluster;

import io.elasticgpu.scheduler.extender.ExtenderConfig;
import io.elasticgpu.simulator.trace.TracePod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * Creates a plan's pods from several concurrent clients, in arrival order (each client takes the next pod), and
 * watches them get bound; returns once scheduling has settled: every pod bound, or none bound for the quiet period.
 *
 * <p>With {@code gated}, every pod is created behind a scheduling gate first and the gates are then lifted in the
 * order the pods were created (arrival order, but for what concurrent creators swap): the extender knows the whole
 * workload before the first pod is placed, as the simulator's policy does (it estimates the typical pods from the
 * whole trace). kube-scheduler's queue still takes them in the order they
 * were created: it sorts pods of equal priority by when it first saw them, and a pod whose gate is lifted keeps the
 * time it was added as gated ({@code QueuedPodInfo.Timestamp}, {@code pkg/scheduler/backend/queue} in v1.36.3).
 */
public final class PodStream {

    /**
     * What happened to the pods.
     *
     * @param queuedVersion  each pod's resourceVersion at its creation (gated or not): the order kube-scheduler's
     *                       queue sorts them in
     * @param latencyNanos   create to bound, of each bound pod
     * @param boundAfterNanos from the first create (or lifted gate) to each bind, ascending: where the time went
     */
    public record Streamed(long[] queuedVersion, long[] latencyNanos, int bound, long[] boundAfterNanos) {
        /** First create (or lifted gate) to last bind. */
        public long elapsedNanos() {
            return boundAfterNanos.length == 0 ? 0 : boundAfterNanos[boundAfterNanos.length - 1];
        }

        public double podsPerSecond() {
            long elapsedNanos = elapsedNanos();
            return elapsedNanos == 0 ? 0 : bound * 1e9 / elapsedNanos;
        }

        /** The {@code p}th percentile of create to bound, in seconds; NaN when no pod was bound. */
        public double latencySeconds(int p) {
            if (latencyNanos.length == 0) {
                return Double.NaN;
            }
            return latencyNanos[Math.min(latencyNanos.length - 1, (int) Math.ceil(p / 100.0 * latencyNanos.length) - 1)]
                    / 1e9;
        }

        /**
         * Seconds from the start until {@code p} percent of the bound pods were bound: a throughput limited by the
         * stream shows an even climb, one limited by a few late pods (retries, backoff) a long last step.
         */
        public double boundAfterSeconds(int p) {
            if (boundAfterNanos.length == 0) {
                return Double.NaN;
            }
            return boundAfterNanos[Math.max(0, (int) Math.ceil(p / 100.0 * boundAfterNanos.length) - 1)] / 1e9;
        }

        /** The pods in the order they became schedulable, as the API server ordered the writes. */
        List<TracePod> inQueueOrder(List<TracePod> pods) {
            return sorted(pods, Comparator.comparingLong(i -> queuedVersion[i]));
        }

        /**
         * The pods {@code cycle} numbers (the scheduling cycle that placed each bound pod) in that order, then the
         * others
         * in the order they became schedulable: the order kube-scheduler actually decided them in, its retries and
         * backoff included, so that the simulator fed it separates what the order cost from what the placement did.
         */
        List<TracePod> inDecisionOrder(List<TracePod> pods, java.util.Map<String, Long> cycle) {
            return sorted(
                    pods,
                    Comparator.<Integer>comparingLong(
                                    i -> cycle.getOrDefault(pods.get(i).name(), Long.MAX_VALUE))
                            .thenComparingLong(i -> queuedVersion[i]));
        }

        private static List<TracePod> sorted(List<TracePod> pods, Comparator<Integer> by) {
            Integer[] order = new Integer[pods.size()];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, by);
            return Arrays.stream(order).map(pods::get).toList();
        }
    }

    private PodStream() {}

    static final String GATE = "bench.elasticgpu.io/replay";
    /** One write per pod: a JSON patch that removes the gates. */
    private static final String UNGATE = "[{\"op\":\"remove\",\"path\":\"/spec/schedulingGates\"}]";

    public static Streamed run(
            KubernetesClient client,
            List<Pod> given,
            int clients,
            boolean gated,
            Duration quiet,
            IntConsumer progress) {
        List<Pod> pods = gated
                ? given.stream()
                        .map(p -> new io.fabric8.kubernetes.api.model.PodBuilder(p)
                                .editSpec()
                                .addNewSchedulingGate(GATE)
                                .endSpec()
                                .build())
                        .toList()
                : given;
        String namespace = pods.getFirst().getMetadata().getNamespace();
        int n = pods.size();
        long[] queued = new long[n];
        long[] createdAt = new long[n];
        long[] latency = new long[n];
        var boundAt = new ConcurrentHashMap<String, Long>();
        AtomicLong lastBind = new AtomicLong(System.nanoTime());
        SharedIndexInformer<Pod> informer = client.pods().inNamespace(namespace).inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                seen(pod);
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
                seen(pod);
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {}

            private void seen(Pod pod) {
                String node = pod.getSpec().getNodeName();
                if (node != null
                        && !node.isEmpty()
                        && boundAt.putIfAbsent(pod.getMetadata().getName(), System.nanoTime()) == null) {
                    lastBind.set(System.nanoTime());
                }
            }
        });
        long start = System.nanoTime();
        inParallel(clients, n, i -> {
            createdAt[i] = System.nanoTime();
            queued[i] = Long.parseLong(create(client, pods.get(i)).getMetadata().getResourceVersion());
            if ((i + 1) % 1000 == 0) {
                progress.accept(i + 1);
            }
        });
        if (gated) {
            start = System.nanoTime();
            // Lifted in the order the queue sorts them by (creation), so a pod is never queued before one created
            // earlier.
            int[] byCreation = java.util.stream.IntStream.range(0, n)
                    .boxed()
                    .sorted(Comparator.comparingLong(i -> queued[i]))
                    .mapToInt(Integer::intValue)
                    .toArray();
            inParallel(clients, n, k -> {
                int i = byCreation[k];
                createdAt[i] = System.nanoTime();
                client.pods()
                        .inNamespace(namespace)
                        .withName(pods.get(i).getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON), UNGATE);
            });
        }
        long lastCreate = System.nanoTime();
        while (boundAt.size() < n && System.nanoTime() - Math.max(lastBind.get(), lastCreate) < quiet.toNanos()) {
            sleep(500);
        }
        informer.close();
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Long at = boundAt.get(pods.get(i).getMetadata().getName());
            if (at != null) {
                latencies.add(at - createdAt[i]);
            }
        }
        long first = start;
        long[] after = boundAt.values().stream()
                .mapToLong(at -> Math.max(0, at - first))
                .sorted()
                .toArray();
        return new Streamed(
                queued, latencies.stream().mapToLong(Long::longValue).sorted().toArray(), boundAt.size(), after);
    }

    /** Where {@link #warmUp} makes its pods; no scheduler has this name: the harness binds them itself. */
    static final String WARM_UP_NAMESPACE = "bench-warm-up";

    private static final int WARM_UP_PODS = 500;

    /**
     * Runs the harness's own code (creating pods, lifting their gates, watching them bound and running) on up to 500
     * copies of {@code pods} that no scheduler takes, binding them itself round robin over the nodes, then deletes
     * them: the JIT compiles this JVM's side once, before anything is measured. Without it the first measured stream
     * also paid for compiling the harness, which the next stream, measured on a warm harness, did not: a difference
     * between contenders that no contender causes (some 7 ms of CPU per pod on 2 cores in this very process). The
     * pods are bound so that seeing pods bound and run is compiled too; the harness's CPU per pod in a stream with a
     * fresh extender stayed higher all the same (14 against 9 ms), so part of it goes with the stream's length. Call
     * it before any contender's scheduler or extender runs, so that nothing of theirs sees the pods.
     */
    public static void warmUp(KubernetesClient client, List<Pod> pods, int clients) {
        List<Pod> copies = copies(client, pods, WARM_UP_PODS, WARM_UP_NAMESPACE, "bench-warm-up-nobody");
        List<String> nodes = client.nodes().list().getItems().stream()
                .map(n -> n.getMetadata().getName())
                .toList();
        var stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread binder = Thread.ofVirtual().start(() -> bindWarmUp(client, nodes, stop));
        try {
            run(client, copies, clients, true, Duration.ofSeconds(3), done -> {});
        } finally {
            stop.set(true);
            try {
                binder.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        deleteAll(client, WARM_UP_NAMESPACE);
    }

    /** Where {@link #warmUpScheduler} makes its pods. */
    static final String WARM_UP_SCHEDULER_NAMESPACE = "bench-warm-up-scheduler";

    /**
     * Schedules copies of the first {@code count} pods through the scheduler they name (the contender's, with its
     * extender) on the nodes the measured pods will use, waits until no more are bound, and deletes them: what is
     * measured next runs on code its JIT has compiled, as in a scheduler that has run for a while. The nodes are
     * empty again afterwards; what the copies left in the extender's ledgers belongs to deleted pods, which the
     * extender drops at its next write there. Then it waits out the extender's workload refresh (the chart keeps the
     * default): the estimate of the typical pod that {@code elastic} and {@code fgd} place by is rebuilt from the pods
     * the cluster holds at most that often, and one made from the copies would decide the first measured pods
     * otherwise than a fresh extender and the simulator do (without the wait, two 200-node replays placed 0.10 and
     * 0.33 points below the simulator; with it, one placed 0.10 above).
     */
    public static void warmUpScheduler(KubernetesClient client, List<Pod> pods, int count, int clients) {
        List<Pod> copies = copies(client, pods, count, WARM_UP_SCHEDULER_NAMESPACE, null);
        run(client, copies, clients, true, Duration.ofSeconds(5), done -> {});
        deleteAll(client, WARM_UP_SCHEDULER_NAMESPACE);
        sleep(ExtenderConfig.defaults().workloadRefresh().plusSeconds(5).toMillis());
    }

    /** The first {@code count} pods copied into {@code namespace} (made here), for {@code scheduler} unless null. */
    private static List<Pod> copies(
            KubernetesClient client, List<Pod> pods, int count, String namespace, String scheduler) {
        client.namespaces()
                .resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .endMetadata()
                        .build())
                .serverSideApply();
        client.serviceAccounts()
                .inNamespace(namespace)
                .withName("default")
                .waitUntilCondition(java.util.Objects::nonNull, 2, java.util.concurrent.TimeUnit.MINUTES);
        return pods.stream()
                .limit(count)
                .map(p -> new io.fabric8.kubernetes.api.model.PodBuilder(p)
                        .editMetadata()
                        .withNamespace(namespace)
                        .endMetadata()
                        .editSpec()
                        .withSchedulerName(scheduler == null ? p.getSpec().getSchedulerName() : scheduler)
                        .endSpec()
                        .build())
                .toList();
    }

    private static void deleteAll(KubernetesClient client, String namespace) {
        client.pods().inNamespace(namespace).withGracePeriod(0).delete();
        while (!client.pods().inNamespace(namespace).list().getItems().isEmpty()) {
            sleep(500);
        }
    }

    /** Binds the warm-up's schedulable pods round robin over {@code nodes} until told to stop. */
    private static void bindWarmUp(
            KubernetesClient client, List<String> nodes, java.util.concurrent.atomic.AtomicBoolean stop) {
        int next = 0;
        while (!stop.get() && !nodes.isEmpty()) {
            for (Pod pod : client.pods().inNamespace(WARM_UP_NAMESPACE).list().getItems()) {
                boolean waiting = pod.getSpec().getNodeName() == null
                        && pod.getSpec().getSchedulingGates().isEmpty();
                if (waiting) {
                    client.bindings()
                            .inNamespace(WARM_UP_NAMESPACE)
                            .resource(new io.fabric8.kubernetes.api.model.BindingBuilder()
                                    .withNewMetadata()
                                    .withName(pod.getMetadata().getName())
                                    .endMetadata()
                                    .withNewTarget()
                                    .withKind("Node")
                                    .withApiVersion("v1")
                                    .withName(nodes.get(next++ % nodes.size()))
                                    .endTarget()
                                    .build())
                            .create();
                }
            }
            sleep(100);
        }
    }

    /** Runs {@code task} on 0..n-1 from {@code clients} threads, each taking the next index. */
    private static void inParallel(int clients, int n, IntConsumer task) {
        AtomicInteger next = new AtomicInteger();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        task.accept(i);
                    }
                }));
            }
            for (var f : done) {
                f.get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Creates one pod, retrying what an overloaded API server answers (429, 5xx, timeouts) for up to a minute. */
    private static Pod create(KubernetesClient client, Pod pod) {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            try {
                return client.pods().resource(pod).create();
            } catch (KubernetesClientException e) {
                boolean transient_ = e.getCode() == 429 || e.getCode() >= 500 || e.getCode() == 0;
                if (!transient_ || System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "cannot create pod %s: %s"
                                    .formatted(pod.getMetadata().getName(), e.getMessage()),
                            e);
                }
                sleep(200);
            }
        }
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
