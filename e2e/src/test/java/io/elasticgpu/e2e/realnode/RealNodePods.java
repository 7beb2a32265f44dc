package io.elasticgpu.e2e.realnode;

import static org.awaitility.Awaitility.await;

import io.elasticgpu.localcluster.realnode.RealNode;
import io.elasticgpu.localcluster.realnode.RealNodePod;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pods for the real node ({@link RealNodePod}) and what their containers report: each prints a
 * {@link ContainerReport}, read back with the pod's log through the API server and kubelet.
 */
final class RealNodePods {

    static final Duration WAIT = Duration.ofSeconds(120);
    private final KubernetesClient client;
    private final String namespace;
    private final RealNode node;

    RealNodePods(KubernetesClient client, String namespace, RealNode node) {
        this.client = client;
        this.namespace = namespace;
        this.node = node;
    }

    /** A pod of one container {@code main} that reports and then sleeps, asking {@code limits}. */
    PodBuilder reporting(String name, Map<String, String> limits) {
        return RealNodePod.running(node, name, ContainerReport.script("sleep 3600"), quantities(limits));
    }

    /** A pod with no container yet, for the real node. */
    PodBuilder pod(String name) {
        return RealNodePod.of(node, name);
    }

    /**
     * A container that reports and then sleeps, using the pod's resource claim {@code claim}: all of it when
     * {@code request} is null, else that request only.
     */
    Container claimReporting(String name, String claim, String request) {
        return new ContainerBuilder()
                .withName(name)
                .withImage(node.busyboxImage())
                .withImagePullPolicy("Never")
                .withCommand("sh", "-c", ContainerReport.script("sleep 3600"))
                .withNewResources()
                .addNewClaim()
                .withName(claim)
                .withRequest(request)
                .endClaim()
                .endResources()
                .build();
    }

    static Map<String, Quantity> quantities(Map<String, String> limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        return q;
    }

    Pod create(Pod pod) {
        return client.pods().inNamespace(namespace).resource(pod).create();
    }

    Pod get(String name) {
        return client.pods().inNamespace(namespace).withName(name).get();
    }

    /** Waits until {@code container} of {@code pod} has printed its whole report, and returns it. */
    ContainerReport report(String pod, String container) {
        return report(pod, container, WAIT);
    }

    /** The same, waiting at most {@code wait}. */
    ContainerReport report(String pod, String container, Duration wait) {
        return await().atMost(wait)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> read(pod, container, false), Optional::isPresent)
                .orElseThrow();
    }

    /** The report of the container's previous run (kubelet keeps the log of the one before the current). */
    ContainerReport previousReport(String pod, String container) {
        return read(pod, container, true)
                .orElseThrow(() ->
                        new AssertionError("container %s of pod %s has no previous report".formatted(container, pod)));
    }

    private Optional<ContainerReport> read(String pod, String container, boolean previous) {
        Pod p = get(pod);
        if (p == null || !started(p, container)) {
            return Optional.empty();
        }
        var logs = client.pods().inNamespace(namespace).withName(pod).inContainer(container);
        try {
            return ContainerReport.parse(previous ? logs.terminated().getLog() : logs.getLog());
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (previous || e.getCode() < 404 || e.getCode() == 403) {
                throw e;
            }
            // The API server reads a log from kubelet: while kubelet restarts it answers 404 or 5xx; look again.
            return Optional.empty();
        }
    }

    private static boolean started(Pod p, String container) {
        return p.getStatus() != null
                && p.getStatus().getContainerStatuses().stream()
                        .filter(s -> s.getName().equals(container))
                        .anyMatch(s -> s.getState().getRunning() != null
                                || s.getState().getTerminated() != null
                                || s.getRestartCount() > 0);
    }

    /** The container's status as kubelet reports it. */
    Optional<ContainerStatus> status(String pod, String container) {
        Pod p = get(pod);
        return p == null || p.getStatus() == null
                ? Optional.empty()
                : p.getStatus().getContainerStatuses().stream()
                        .filter(s -> s.getName().equals(container))
                        .findFirst();
    }

    List<Pod> all() {
        return client.pods().inNamespace(namespace).list().getItems();
    }
}
