package io.elasticgpu.node.agent;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events about this node and the objects on it (core/v1 Events, the kind {@code kubectl describe} shows), posted as
 * kubelet posts its own: from component {@value #COMPONENT} on this host. A failure to post is logged and dropped:
 * an event is a notice, never a reason to fail what caused it.
 */
final class ClusterEvents {

    static final String COMPONENT = "elastic-gpu-node-agent";
    private static final Logger LOG = LoggerFactory.getLogger(ClusterEvents.class);

    private final KubernetesClient client;
    private final String node;

    ClusterEvents(KubernetesClient client, String node) {
        this.client = client;
        this.node = node;
    }

    void warn(String kind, String namespace, String name, String reason, String message) {
        post("Warning", kind, namespace, name, reason, message);
    }

    /** A Normal event about the node itself, in namespace {@code default} as kubelet posts its node's. */
    void notice(String reason, String message) {
        post("Normal", "Node", "", node, reason, message);
    }

    private void post(String type, String kind, String namespace, String name, String reason, String message) {
        String at = namespace.isEmpty() ? "default" : namespace; // a cluster-scoped object's events
        String now =
                DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        try {
            client.v1()
                    .events()
                    .inNamespace(at)
                    .resource(new EventBuilder()
                            .withNewMetadata()
                            .withGenerateName(name + ".")
                            .withNamespace(at)
                            .endMetadata()
                            .withNewInvolvedObject()
                            .withKind(kind)
                            .withNamespace(namespace.isEmpty() ? null : namespace)
                            .withName(name)
                            .withApiVersion("Pod".equals(kind) || "Node".equals(kind) ? "v1" : "resource.k8s.io/v1")
                            .endInvolvedObject()
                            .withType(type)
                            .withReason(reason)
                            .withMessage(message)
                            .withNewSource()
                            .withComponent(COMPONENT)
                            .withHost(node)
                            .endSource()
                            .withReportingComponent(COMPONENT)
                            .withReportingInstance(node)
                            .withFirstTimestamp(now)
                            .withLastTimestamp(now)
                            .withCount(1)
                            .build())
                    .create();
        } catch (KubernetesClientException e) {
            LOG.warn("cannot post event {} about {} {}/{}: {}", reason, kind, namespace, name, e.getMessage());
        }
    }
}
