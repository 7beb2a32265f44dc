package io.elasticgpu.scheduler.binding;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.CardHolding;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.HttpURLConnection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClusterApi} on the real API server through fabric8. A node's ledger is the ConfigMap
 * {@code egpu-ledger.<node>} in the extender's namespace, updated with its resourceVersion as precondition.
 */
public final class KubernetesClusterApi implements ClusterApi {

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesClusterApi.class);

    /** Label on every ledger, so that an operator finds them all. */
    public static final String LEDGER_LABEL = "elasticgpu.io/ledger";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String namespace;

    public KubernetesClusterApi(KubernetesClient client, String ledgerNamespace) {
        this.client = requireNonNull(client, "client");
        this.namespace = requireNonNull(ledgerNamespace, "ledgerNamespace");
    }

    public static String ledgerName(String node) {
        return "egpu-ledger." + node;
    }

    @Override
    public Ledger readLedger(String node) {
        ConfigMap cm;
        try {
            cm = client.configMaps()
                    .inNamespace(namespace)
                    .withName(ledgerName(node))
                    .get();
        } catch (KubernetesClientException e) {
            throw new ApiException("reading the ledger of node %s: %s".formatted(node, reason(e)), e);
        }
        if (cm == null) {
            return new Ledger(Map.of(), null);
        }
        return new Ledger(
                cm.getData() == null ? Map.of() : cm.getData(), cm.getMetadata().getResourceVersion());
    }

    @Override
    public Optional<String> writeLedger(String node, Map<String, String> entries, String version) {
        ConfigMap cm = new ConfigMapBuilder()
                .withNewMetadata()
                .withName(ledgerName(node))
                .withNamespace(namespace)
                .withResourceVersion(version)
                .addToLabels(LEDGER_LABEL, "true")
                .endMetadata()
                .withData(new LinkedHashMap<>(entries))
                .build();
        try {
            return Optional.of(write(cm, version).getMetadata().getResourceVersion());
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                return Optional.empty();
            }
            throw new ApiException("writing the ledger of node %s: %s".formatted(node, reason(e)), e);
        }
    }

    /**
     * Creates or updates a ledger. A first ledger in a namespace that does not exist yet (a local cluster, the
     * default namespace) makes the namespace first; installed by the chart, the namespace is the release's, so the
     * extender never needs rights on namespaces there.
     */
    private ConfigMap write(ConfigMap cm, String version) {
        if (version != null) {
            return client.configMaps().inNamespace(namespace).resource(cm).update();
        }
        try {
            return client.configMaps().inNamespace(namespace).resource(cm).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                throw e;
            }
            createNamespace();
            return client.configMaps().inNamespace(namespace).resource(cm).create();
        }
    }

    private void createNamespace() {
        try {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(namespace)
                            .endMetadata()
                            .build())
                    .create();
            LOG.info("created namespace {} for the ledgers", namespace);
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw new ApiException(
                        "the ledger namespace %s does not exist and cannot be created: %s; create it or"
                                        .formatted(namespace, reason(e))
                                + " set --ledger-namespace",
                        e);
            }
        }
    }

    @Override
    public PodView pod(String ns, String name, String uid) {
        Pod pod = client.pods().inNamespace(ns).withName(name).get();
        if (pod == null || !uid.equals(pod.getMetadata().getUid()) || !CardHolding.holdsCards(pod)) {
            return PodView.GONE;
        }
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return new PodView(true, node == null || node.isEmpty() ? null : node);
    }

    @Override
    public void annotateNode(String node, String key, String value) {
        try {
            String patch = JSON.writeValueAsString(Map.of("metadata", Map.of("annotations", Map.of(key, value))));
            client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        } catch (KubernetesClientException e) {
            throw new ApiException("annotating node %s: %s".formatted(node, reason(e)), e);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void bind(String ns, String name, String uid, String node, Map<String, String> annotations) {
        Binding binding = new BindingBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .withUid(uid)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withApiVersion("v1")
                .withName(node)
                .endTarget()
                .build();
        try {
            client.bindings().inNamespace(ns).resource(binding).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                Pod pod = client.pods().inNamespace(ns).withName(name).get();
                String bound = pod == null || pod.getSpec() == null
                        ? null
                        : pod.getSpec().getNodeName();
                if (bound != null && !bound.isEmpty()) {
                    throw new AlreadyBoundException(bound);
                }
            }
            throw new ApiException("binding pod %s/%s to %s: %s".formatted(ns, name, node, reason(e)), e);
        }
    }

    /** The API server's own one-line message, without fabric8's dump of the whole Status. */
    private static String reason(KubernetesClientException e) {
        return e.getStatus() != null && e.getStatus().getMessage() != null
                ? "%s (HTTP %d)".formatted(e.getStatus().getMessage(), e.getCode())
                : e.getMessage();
    }
}
