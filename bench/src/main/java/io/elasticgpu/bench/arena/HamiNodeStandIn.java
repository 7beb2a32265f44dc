package io.elasticgpu.bench.arena;

import io.elasticgpu.api.watch.OnChange;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of HAMi's device plugin its scheduler waits for, played for kwok nodes (which run no device plugin):
 * HAMi's bind locks the node (the Node annotation {@value #NODE_LOCK}) and marks the pod {@code allocating}; its
 * device plugin, after kubelet's Allocate, marks the pod {@value #SUCCESS} and releases the lock. Without that, the
 * next pod HAMi binds to the node waits until the lock times out (5 minutes by default). It also answers the
 * scheduler's handshake ({@code Requesting_<time>}) as the device plugin does. Writes happen on one thread of their
 * own, after each change an informer reports.
 */
public final class HamiNodeStandIn implements AutoCloseable {

    /** The pod annotation saying where HAMi's bind stands. */
    public static final String BIND_PHASE = "hami.io/bind-phase";
    /** The Node annotation HAMi's bind takes as its lock: {@code <time>,<namespace>,<pod>}. */
    public static final String NODE_LOCK = "hami.io/mutex.lock";

    static final String ALLOCATING = "allocating";
    static final String SUCCESS = "success";

    private static final Logger LOG = LoggerFactory.getLogger(HamiNodeStandIn.class);
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final KubernetesClient client;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("hami-stand-in").factory());
    private final AtomicBoolean queued = new AtomicBoolean();
    private final java.util.Set<String> answered = java.util.concurrent.ConcurrentHashMap.newKeySet();
    // Set by the constructor after the informers start, which may report before both are set: settle waits for both.
    private volatile SharedIndexInformer<Pod> pods;
    private volatile SharedIndexInformer<Node> nodes;

    public HamiNodeStandIn(KubernetesClient client) {
        this.client = client;
        this.pods = client.pods().inAnyNamespace().inform(new OnChange<>(this::changed));
        this.nodes = client.nodes().inform(new OnChange<>(this::changed));
        changed();
    }

    private void changed() {
        if (queued.compareAndSet(false, true)) {
            writer.execute(this::settle);
        }
    }

    /** Does, for everything the informers hold now, what HAMi's device plugin would have done by now. */
    private void settle() {
        queued.set(false);
        if (pods == null || nodes == null) {
            return; // the constructor calls changed() again once both are set
        }
        for (Pod pod : pods.getStore().list()) {
            try {
                allocated(pod);
            } catch (KubernetesClientException e) {
                LOG.warn(
                        "pod {}/{}: {}",
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        e.getMessage());
            }
        }
        for (Node node : nodes.getStore().list()) {
            try {
                handshake(node);
            } catch (KubernetesClientException e) {
                LOG.warn("node {}: {}", node.getMetadata().getName(), e.getMessage());
            }
        }
    }

    /**
     * A pod HAMi bound and marked allocating: kubelet has "allocated" it; release its node's lock, then mark it. In
     * that order, so that a failed write leaves the pod allocating and the next pass tries again; both writes are
     * patches that need no resourceVersion (the lock's removal tests that it is still this pod's), so HAMi's own
     * writes to the node never make them conflict.
     */
    private void allocated(Pod pod) {
        String node = pod.getSpec().getNodeName();
        if (node == null
                || !ALLOCATING.equals(
                        annotations(pod.getMetadata().getAnnotations()).get(BIND_PHASE))) {
            return;
        }
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        Node current = nodes.getStore().getByKey(node);
        String lock = current == null
                ? null
                : annotations(current.getMetadata().getAnnotations()).get(NODE_LOCK);
        if (lock != null && lock.endsWith("," + ns + "," + name)) {
            try {
                client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON), """
                        [{"op":"test","path":"/metadata/annotations/%1$s","value":%2$s},
                         {"op":"remove","path":"/metadata/annotations/%1$s"}]""".formatted(
                                pointer(NODE_LOCK), json(lock)));
            } catch (KubernetesClientException e) {
                if (e.getCode() != 422) { // 422: the test failed, the lock changed hands since this pass read it
                    throw e;
                }
            }
        }
        client.pods()
                .inNamespace(ns)
                .withName(name)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        HamiRegistration.annotationsPatch(Map.of(BIND_PHASE, SUCCESS)));
    }

    /** The scheduler asks the device plugin to report ({@code Requesting_<time>}): it reports. */
    private void handshake(Node node) {
        String handshake = annotations(node.getMetadata().getAnnotations()).get(HamiRegistration.HANDSHAKE);
        if (handshake != null && handshake.startsWith("Requesting_")) {
            client.nodes()
                    .withName(node.getMetadata().getName())
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            HamiRegistration.annotationsPatch(Map.of(
                                    HamiRegistration.HANDSHAKE,
                                    HamiRegistration.reported(Instant.now(), ZoneId.systemDefault()))));
            answered.add(node.getMetadata().getName());
        }
    }

    /** {@code key} as one token of a JSON pointer ({@code /} and {@code ~} escaped). */
    static String pointer(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static String json(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * How many nodes' handshakes have been answered: HAMi's scheduler asks each node once per round of its node
     * registration, so when this reaches the node count it has read every node's cards at least once.
     */
    public int nodesAnswered() {
        return answered.size();
    }

    private static Map<String, String> annotations(Map<String, String> annotations) {
        return annotations == null ? Map.of() : annotations;
    }

    @Override
    public void close() {
        pods.close();
        nodes.close();
        writer.shutdownNow();
    }
}
