package io.elasticgpu.scheduler.cache;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pods the informer shows, as much of each as the cache needs: a GPU pod's object (for binding and the workload
 * estimate), what a pod without GPUs asks, which pods are live or gone, and what each bound pod holds on its node as
 * its allocation annotation says. A bound GPU pod whose cards this cache cannot know (no allocation it can read, or
 * one naming another node) is an unknown holder: its node gets no GPU pod until it is fixed or gone, since counting
 * it as holding nothing could hand its cards out twice.
 *
 * <p>Not thread-safe: only {@link ClusterCache} touches it, under its lock.
 */
final class Pods {

    private static final Logger LOG = LoggerFactory.getLogger(Pods.class);
    /** Pods remembered as gone at most: past it the set starts over, and an unknown pod is asked about at the API. */
    static final int GONE_REMEMBERED = 100_000;

    /**
     * A bound pod as the informer shows it: its allocation there (null when none is readable); whether it asks GPUs. */
    record Bound(PodGrant allocation, boolean asksGpu) {}

    private final Predicate<Pod> asksGpu;
    private final Map<String, Pod> gpuPods = new HashMap<>();
    /** Pods that ask no GPU, as much of them as the workload estimate needs. */
    private final Map<String, HostPod> hostPods = new HashMap<>();
    /**
     * Pods that ask no GPU and are bound to a node, as the informer shows them (the informer's own objects: no copy),
     * for preemption to weigh by priority and disruption budget.
     */
    private final Map<String, Pod> boundHostPods = new HashMap<>();

    private final Map<String, String> uidByName = new HashMap<>();
    private final Set<String> gone = new HashSet<>();
    private final Set<String> live = new HashSet<>();
    /** What each bound pod holds on its node, as the informer shows it. */
    private final Map<String, PodHolding> observed = new HashMap<>();
    /** By node: pod uid to namespace/name. */
    private final Map<String, Map<String, String>> unknownHolders = new HashMap<>();

    private int unaccounted;

    /** @param asksGpu which pods are Elastic GPU's (their objects are kept for binding) */
    Pods(Predicate<Pod> asksGpu) {
        this.asksGpu = asksGpu;
    }

    /**
     * Records a pod that holds or will hold cards.
     *
     * @param assumed whether this replica counts the pod as it assumed it (a bind in flight: no unknown holder)
     * @param draNode whether a node offers its cards through DRA, where a GPU pod's claim holds them
     * @return what it shows of its binding; empty while it waits for a node
     */
    Optional<Bound> seen(Pod pod, boolean assumed, Predicate<String> draNode) {
        String uid = pod.getMetadata().getUid();
        String key =
                HostPod.key(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
        gone.remove(uid);
        live.add(uid);
        uidByName.put(key, uid);
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        boolean asks = asksGpu.test(pod);
        if (asks) {
            gpuPods.put(uid, pod);
        } else {
            PodResources.Totals t = PodResources.of(pod);
            List<String> claimKeys = DraAsks.claims(pod).stream()
                    .filter(c -> c.claimName() != null)
                    .map(c -> HostPod.key(pod.getMetadata().getNamespace(), c.claimName()))
                    .toList();
            hostPods.put(
                    uid,
                    new HostPod(
                            pod.getSpec() == null ? null : pod.getSpec().getSchedulerName(),
                            node == null || node.isEmpty() ? null : node,
                            t.cpuMilli(),
                            t.memoryMib(),
                            claimKeys));
        }
        if (!asks && node != null && !node.isEmpty()) {
            boundHostPods.put(uid, pod);
        } else {
            boundHostPods.remove(uid);
        }
        if (node == null || node.isEmpty()) {
            observed.remove(uid);
            return Optional.empty();
        }
        PodGrant allocation = allocation(pod, node);
        // On a DRA node a pod asking our extended resource holds the claim kube-scheduler made for it.
        boolean unknown = allocation == null && asks && !assumed && !draNode.test(node);
        if (unknown
                && unknownHolders.computeIfAbsent(node, k -> new HashMap<>()).put(uid, key) == null) {
            unaccounted++;
            LOG.warn(
                    "pod={} on node={} asks GPUs but carries no allocation this extender can read; no GPU pod goes"
                            + " to the node until it is fixed or gone",
                    key,
                    node);
        } else if (!unknown) {
            forgetUnknown(uid);
        }
        observed.put(uid, PodHolding.of(node, PodResources.of(pod), allocation));
        return Optional.of(new Bound(allocation, asks));
    }

    /** A pod deleted, Succeeded or Failed: it holds nothing any more. */
    /** {@code pod} was deleted, or ended (Succeeded, Failed). */
    void gone(Pod pod) {
        gone(
                pod.getMetadata().getUid(),
                HostPod.key(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
    }

    void gone(String uid, String key) {
        gone.add(uid);
        if (gone.size() > GONE_REMEMBERED) {
            gone.clear(); // a bound on memory: an unknown pod is asked about at the API, which is only slower
            gone.add(uid);
        }
        uidByName.remove(key, uid);
        forgetUnknown(uid);
        live.remove(uid);
        gpuPods.remove(uid);
        hostPods.remove(uid);
        boundHostPods.remove(uid);
        observed.remove(uid);
    }

    private void forgetUnknown(String uid) {
        unknownHolders.values().removeIf(byUid -> byUid.remove(uid) != null && byUid.isEmpty());
    }

    /** What every bound pod holds, by uid, as the informer shows it. */
    Map<String, PodHolding> observed() {
        return Map.copyOf(observed);
    }

    /** What pod {@code uid} holds on its node as the informer shows it; null when not bound. */
    PodHolding observed(String uid) {
        return observed.get(uid);
    }

    /** Pod {@code uid} as the informer shows it: a GPU pod, or a pod without GPUs bound to a node; null otherwise. */
    Pod object(String uid) {
        Pod p = gpuPods.get(uid);
        return p != null ? p : boundHostPods.get(uid);
    }

    Optional<Pod> gpuPod(String namespace, String name) {
        String uid = uidByName.get(HostPod.key(namespace, name));
        return Optional.ofNullable(uid == null ? null : gpuPods.get(uid));
    }

    PodPresence status(String uid) {
        if (gone.contains(uid)) {
            return PodPresence.GONE;
        }
        return live.contains(uid) ? PodPresence.LIVE : PodPresence.UNKNOWN;
    }

    Optional<String> boundNode(String uid) {
        PodHolding c = observed.get(uid);
        return Optional.ofNullable(c == null ? null : c.node());
    }

    List<Pod> gpuPods() {
        return List.copyOf(gpuPods.values());
    }

    /**
     * The pods without GPUs that belong to the GPU pods' workload: those bound to a node with cards, those pending
     * for a scheduler that GPU pods use, and those pending with ResourceClaims.
     *
     * @param hasCards whether a node has cards
     */
    List<HostPod> hostWorkload(Predicate<String> hasCards) {
        Set<String> schedulers = new HashSet<>();
        gpuPods.values()
                .forEach(p ->
                        schedulers.add(p.getSpec() == null ? null : p.getSpec().getSchedulerName()));
        List<HostPod> out = new ArrayList<>();
        for (HostPod h : hostPods.values()) {
            boolean pendingHere =
                    schedulers.contains(h.scheduler()) || !h.claims().isEmpty();
            if (h.node() != null ? hasCards.test(h.node()) : pendingHere) {
                out.add(h);
            }
        }
        return out;
    }

    /** GPU pods and pods without GPUs. */
    int count() {
        return gpuPods.size() + hostPods.size();
    }

    /** Each node where a pod holds cards nobody can name, with the first such pod by namespace/name. */
    Map<String, String> unknownHolders() {
        if (unknownHolders.isEmpty()) {
            return Map.of();
        }
        Map<String, String> first = new TreeMap<>();
        unknownHolders.forEach(
                (node, byUid) -> byUid.values().stream().sorted().findFirst().ifPresent(p -> first.put(node, p)));
        return Map.copyOf(first);
    }

    /** Bound GPU pods seen without an allocation annotation since start. */
    int unaccounted() {
        return unaccounted;
    }

    private static PodGrant allocation(Pod pod, String node) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Annotations.ALLOCATION);
        if (json == null) {
            return null;
        }
        try {
            PodGrant a = PodGrant.fromJson(json);
            return a.node().equals(node) ? a : null;
        } catch (IllegalArgumentException e) {
            LOG.warn(
                    "pod={} has an unreadable allocation: {}",
                    HostPod.key(
                            pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                    e.getMessage());
            return null;
        }
    }
}
