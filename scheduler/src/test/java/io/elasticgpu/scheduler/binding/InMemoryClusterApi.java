package io.elasticgpu.scheduler.binding;

import io.elasticgpu.scheduler.cache.ClusterCache;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An API server in memory, with the semantics binding relies on: ledgers updated only from the version read
 * (conflict otherwise), annotations merged with a uid precondition, bindings refused for bound pods. It also plays
 * the informers: {@link #feed} shows a cache the current pods and nodes. Thread-safe. For tests and benchmarks.
 */
public final class InMemoryClusterApi implements ClusterApi {

    private final Map<String, Ledger> ledgers = new HashMap<>();
    private final Map<String, Pod> pods = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final AtomicInteger versions = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean failBinds;
    private volatile boolean down;
    private volatile long writeLatencyMillis;
    private volatile java.util.concurrent.CountDownLatch writesOpen = new java.util.concurrent.CountDownLatch(0);
    private final AtomicInteger ledgerWrites = new AtomicInteger();

    public synchronized void addNode(Node node) {
        nodes.put(node.getMetadata().getName(), node);
    }

    public synchronized void addPod(Pod pod) {
        pods.put(key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()), pod);
    }

    public synchronized void deletePod(String namespace, String name) {
        pods.remove(key(namespace, name));
    }

    public synchronized List<Pod> pods() {
        return new ArrayList<>(pods.values());
    }

    public synchronized Map<String, String> ledger(String node) {
        Ledger l = ledgers.get(node);
        return l == null ? Map.of() : l.entries();
    }

    /** Every API call made so far. */
    public int calls() {
        return calls.get();
    }

    /** Makes every bind fail, as an API server refusing bindings would. */
    public void failBinds(boolean fail) {
        failBinds = fail;
    }

    /** Makes every call fail, as an API server that is restarting or shutting down does. */
    public void down(boolean isDown) {
        down = isDown;
    }

    /** Makes each ledger write take {@code latency} before it reaches the store, as a loaded API server's do. */
    public void ledgerWriteLatency(java.time.Duration latency) {
        writeLatencyMillis = latency.toMillis();
    }

    /** Makes ledger writes wait, in flight, until {@code open} counts down. */
    public void holdLedgerWrites(java.util.concurrent.CountDownLatch open) {
        writesOpen = open;
    }

    /** Ledger writes made so far, refused or not. */
    public int ledgerWrites() {
        return ledgerWrites.get();
    }

    /** Shows {@code cache} the API's nodes and pods now, as an informer's relist would. */
    public synchronized void feed(ClusterCache cache) {
        nodes.values().forEach(cache::upsertNode);
        pods.values().forEach(cache::upsertPod);
    }

    @Override
    public synchronized Ledger readLedger(String node) {
        calls.incrementAndGet();
        if (down) {
            throw new ApiException("reading the ledger of node %s: connection refused".formatted(node));
        }
        return ledgers.getOrDefault(node, new Ledger(Map.of(), null));
    }

    @Override
    public java.util.Optional<String> writeLedger(String node, Map<String, String> entries, String version) {
        ledgerWrites.incrementAndGet();
        try {
            writesOpen.await();
            if (writeLatencyMillis > 0) {
                Thread.sleep(writeLatencyMillis); // in flight: other writes may land meanwhile
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException("interrupted");
        }
        return store(node, entries, version);
    }

    private synchronized java.util.Optional<String> store(String node, Map<String, String> entries, String version) {
        calls.incrementAndGet();
        Ledger current = ledgers.get(node);
        String currentVersion = current == null ? null : current.version();
        if (!java.util.Objects.equals(currentVersion, version)) {
            return java.util.Optional.empty();
        }
        String next = Integer.toString(versions.incrementAndGet());
        ledgers.put(node, new Ledger(entries, next));
        return java.util.Optional.of(next);
    }

    @Override
    public synchronized PodView pod(String namespace, String name, String uid) {
        calls.incrementAndGet();
        Pod p = pods.get(key(namespace, name));
        return p != null && uid.equals(p.getMetadata().getUid())
                ? new PodView(true, p.getSpec().getNodeName())
                : PodView.GONE;
    }

    @Override
    public synchronized void annotateNode(String node, String key, String value) {
        calls.incrementAndGet();
        Node n = nodes.get(node);
        if (n == null) {
            throw new ApiException("nodes \"%s\" not found".formatted(node));
        }
        addNode(new NodeBuilder(n)
                .editMetadata()
                .addToAnnotations(key, value)
                .endMetadata()
                .build());
    }

    /** A node as this API holds it now. */
    public synchronized Node node(String name) {
        return nodes.get(name);
    }

    @Override
    public synchronized void bind(
            String namespace, String name, String uid, String node, Map<String, String> annotations) {
        calls.incrementAndGet();
        Pod p = live(namespace, name, uid);
        if (failBinds) {
            throw new ApiException("bindings are refused");
        }
        if (p.getSpec().getNodeName() != null) {
            throw new AlreadyBoundException(p.getSpec().getNodeName());
        }
        // as the API server's BindingREST does: the Binding's annotations are set on the pod with its node
        Map<String, String> merged = new LinkedHashMap<>(
                p.getMetadata().getAnnotations() == null
                        ? Map.of()
                        : p.getMetadata().getAnnotations());
        merged.putAll(annotations);
        addPod(new PodBuilder(p)
                .editSpec()
                .withNodeName(node)
                .endSpec()
                .editMetadata()
                .withAnnotations(merged)
                .endMetadata()
                .build());
    }

    private Pod live(String namespace, String name, String uid) {
        Pod p = pods.get(key(namespace, name));
        if (p == null || !uid.equals(p.getMetadata().getUid())) {
            throw new ApiException("pod %s/%s uid %s not found".formatted(namespace, name, uid));
        }
        return p;
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }
}
