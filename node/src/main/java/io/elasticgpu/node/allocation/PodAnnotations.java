package io.elasticgpu.node.allocation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what containers really got into their pod: {@code elasticgpu.io/allocation} (the plan, with each
 * container's entry replaced by what it got), {@code elasticgpu.io/phase: allocated} once every GPU container has
 * its cards, {@code elasticgpu.io/allocation-note} when an ambiguity was resolved, and for Aliyun and Volcano pods
 * the "assigned" flags their device plugins set. A merge patch guarded by the pod's uid.
 */
public final class PodAnnotations implements TruthWriter {

    public static final String NOTE = "elasticgpu.io/allocation-note";
    private static final Logger LOG = LoggerFactory.getLogger(PodAnnotations.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String node;

    public PodAnnotations(KubernetesClient client, String node) {
        this.client = client;
        this.node = node;
    }

    @Override
    public void record(NodePod pod, Map<String, List<Share>> given, Map<String, String> notes, boolean complete) {
        Map<String, List<Share>> containers =
                new LinkedHashMap<>(pod.plan().map(PodGrant::containers).orElse(Map.of()));
        containers.putAll(given);
        Map<String, String> a = new HashMap<>();
        a.put(Annotations.ALLOCATION, new PodGrant(node, containers).toJson());
        if (complete) {
            a.put(Annotations.PHASE, Annotations.PHASE_ALLOCATED);
            if (pod.containers().stream().anyMatch(c -> c.family() == Family.ALIYUN)) {
                a.put(Annotations.ALIYUN_ASSIGNED, "true");
            }
            if (pod.containers().stream().anyMatch(c -> c.family() == Family.VOLCANO)) {
                a.put(Annotations.VOLCANO_ASSIGNED, "true");
            }
        }
        if (!notes.isEmpty()) {
            a.put(NOTE, json(notes));
        }
        try {
            String patch = json(Map.of("metadata", Map.of("uid", pod.uid(), "annotations", a)));
            client.pods()
                    .inNamespace(pod.namespace())
                    .withName(pod.name())
                    .patch(
                            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                                    io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                            patch);
        } catch (KubernetesClientException e) {
            LOG.warn("cannot record the allocation of {}/{}: {}", pod.namespace(), pod.name(), e.getMessage());
        }
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
