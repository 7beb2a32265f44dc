package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.ClusterPods;
import io.elasticgpu.node.allocation.NodePod;
import io.elasticgpu.node.allocation.PodSource;
import io.elasticgpu.node.allocation.TruthWriter;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The API server as the agent sees it, in memory: pods bound to the node, what the agent recorded, what it published,
 * the Warning events it posted and the evictions it asked (answered with {@link #evictionAnswer}).
 * */
final class TestCluster implements Cluster {

    final List<Pod> pods = new CopyOnWriteArrayList<>();
    final Map<String, Map<String, List<Share>>> recorded = new ConcurrentHashMap<>();
    final Map<String, Map<String, String>> notes = new ConcurrentHashMap<>();
    final Map<String, Boolean> complete = new ConcurrentHashMap<>();
    final AtomicInteger publications = new AtomicInteger();
    volatile boolean[] lastHealth = new boolean[0];
    volatile String[] lastReasons = new String[0];
    /** Each Warning event posted, as {@code kind namespace/name reason: message}. */
    final List<String> warnings = new CopyOnWriteArrayList<>();
    /** Each eviction asked, as {@code namespace/name uid}. */
    final List<String> evictions = new CopyOnWriteArrayList<>();
    /** The isolation label and annotation the agent said it runs. */
    volatile String isolationLabel = "";

    volatile String isolationJson = "";
    /** What the next evictions are answered. */
    volatile PodEviction evictionAnswer = new PodEviction.Evicted();

    private final AgentConfig config;

    TestCluster(AgentConfig config) {
        this.config = config;
    }

    private final PodSource source = new PodSource() {
        @Override
        public List<NodePod> pods() {
            return pods.stream()
                    .flatMap(p -> ClusterPods.of(p, config.nodeName(), config.units()).stream())
                    .toList();
        }

        @Override
        public List<NodePod> refresh() {
            return pods();
        }
    };

    @Override
    public PodSource pods() {
        return source;
    }

    @Override
    public TruthWriter truth() {
        return (pod, given, notesByContainer, done) -> {
            recorded.put(pod.name(), Map.copyOf(given));
            notes.put(pod.name(), Map.copyOf(notesByContainer));
            complete.put(pod.name(), done);
        };
    }

    @Override
    public void isolation(String label, String json) {
        isolationLabel = label;
        isolationJson = json;
    }

    @Override
    public void publish(Hardware hardware, CardHealth health) {
        boolean[] h = new boolean[hardware.gpus().size()];
        String[] why = new String[h.length];
        for (int i = 0; i < h.length; i++) {
            h[i] = health.healthy(i);
            why[i] = health.reason(i);
        }
        lastReasons = why;
        lastHealth = h;
        publications.incrementAndGet();
    }

    @Override
    public void warn(String kind, String namespace, String name, String reason, String message) {
        warnings.add("%s %s/%s %s: %s".formatted(kind, namespace, name, reason, message));
    }

    @Override
    public PodEviction evict(String namespace, String name, String uid) {
        evictions.add("%s/%s %s".formatted(namespace, name, uid));
        return evictionAnswer;
    }

    @Override
    public void close() {}
}
