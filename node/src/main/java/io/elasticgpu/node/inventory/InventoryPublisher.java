package io.elasticgpu.node.inventory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.health.CardHealth;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the node's labels and inventory annotation with one merge patch; called at start and on every health change.
 * */
public final class InventoryPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(InventoryPublisher.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String node;
    private final String api;
    private volatile Map<String, String> isolationLabel = Map.of(NodeLabels.ISOLATION, "none");
    private volatile Map<String, String> isolationAnnotation = Map.of();

    /** For a node whose cards are offered through the device plugin. */
    public InventoryPublisher(KubernetesClient client, String node) {
        this(client, node, NodeLabels.API_DEVICE_PLUGIN);
    }

    /** @param api the value of {@link NodeLabels#API}: the one API this node's cards are offered through */
    public InventoryPublisher(KubernetesClient client, String node, String api) {
        this.client = client;
        this.node = node;
        this.api = api;
    }

    /**
     * What the next {@link #publish} writes about isolation: {@link NodeLabels#ISOLATION} and, unless empty,
     * {@link Annotations#ISOLATION}.
     */
    public void isolation(String label, String json) {
        isolationLabel = Map.of(NodeLabels.ISOLATION, NodeLabels.value(label));
        isolationAnnotation = json.isEmpty() ? Map.of() : Map.of(Annotations.ISOLATION, json);
    }

    /**
     * Writes {@link Annotations#USAGE}; returns whether the node took it (a failure is logged, the next sample tries
     * again). */
    public boolean publishUsage(NodeUsage usage) {
        Map<String, Object> patch =
                Map.of("metadata", Map.of("annotations", Map.of(Annotations.USAGE, usage.toJson())));
        try {
            client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(patch));
            return true;
        } catch (KubernetesClientException e) {
            LOG.warn("cannot publish the GPU usage of node {}: {}", node, e.getMessage());
            return false;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return whether the node took it (a failure is logged; the next change or restart tries again) */
    public synchronized boolean publish(Hardware hw, CardHealth health) {
        Map<String, String> labels = new java.util.LinkedHashMap<>(InventoryDocument.labels(hw));
        labels.put(NodeLabels.API, api);
        labels.putAll(isolationLabel);
        Map<String, String> annotations = new java.util.LinkedHashMap<>(isolationAnnotation);
        annotations.put(
                Annotations.INVENTORY, InventoryDocument.inventory(hw, health).toJson());
        Map<String, Object> patch = Map.of("metadata", Map.of("labels", labels, "annotations", annotations));
        try {
            client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(patch));
            return true;
        } catch (KubernetesClientException e) {
            LOG.error(
                    "cannot publish the inventory of node {}: {}; the extender keeps the last one it saw",
                    node,
                    e.getMessage());
            return false;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
