package io.elasticgpu.scheduler.binding;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.KubeletAllocate;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One look-alike at a time per node ({@link KubeletAllocate#lookalike}): kubelet's {@code Allocate} names no pod, so
 * a pod is not bound to a node where a pod kubelet could not tell from it still waits to be admitted; it is bound
 * once that one is (the node agent marks it {@code elasticgpu.io/phase: allocated}) and kube-scheduler retries it.
 * HAMi locks every node from bind to allocation for the same reason; here only look-alikes wait. Only nodes whose
 * agent offers cards through the device plugin (it labels them so, and it is what marks admissions) are held to it,
 * and a pod bound longer than {@link #ADMISSION} ago holds nobody up: kubelet admits within seconds, so it is stuck.
 */
final class LookalikeGate {

    static final Duration ADMISSION = Duration.ofSeconds(60);

    /** A pod by uid, as the informer shows it or kube-scheduler last sent it. */
    interface Pods {
        Optional<Pod> pod(String namespace, String name, String uid);
    }

    private final Pods pods;
    private final PodAsks.Units units;

    LookalikeGate(Pods pods, PodAsks.Units units) {
        this.pods = pods;
        this.units = units;
    }

    /**
     * Why {@code pod} cannot be bound to {@code node} with {@code chosen} yet, or empty when it can.
     *
     * @param entries the node's ledger, without this pod's entry
     */
    Optional<String> wait(Node node, Map<String, String> entries, Pod pod, PodGrant chosen, long nowMillis) {
        if (!NodeLabels.API_DEVICE_PLUGIN.equals(node.labels().get(NodeLabels.API))) {
            return Optional.empty();
        }
        for (var e : entries.entrySet()) {
            LedgerEntry entry = LedgerEntry.fromJson(e.getValue());
            if (nowMillis - entry.reservedAtMillis() >= ADMISSION.toMillis()) {
                continue;
            }
            Optional<String> ask = pods.pod(entry.namespace(), entry.name(), e.getKey())
                    .filter(p -> !Annotations.allocated(p))
                    .flatMap(p -> KubeletAllocate.lookalike(pod, chosen, p, entry.allocation(), units));
            if (ask.isPresent()) {
                return Optional.of(
                        ("pod %s waits for kubelet on node %s and asks %s as this pod does, with another share:"
                                        + " kubelet's Allocate names no pod, so this pod is bound there once that "
                                        + "one is admitted (at most %d s);"
                                        + " kube-scheduler will retry")
                                .formatted(entry.pod(), node.name(), ask.get(), ADMISSION.toSeconds()));
            }
        }
        return Optional.empty();
    }
}
