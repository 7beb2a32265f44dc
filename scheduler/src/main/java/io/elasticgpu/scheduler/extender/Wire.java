package io.elasticgpu.scheduler.extender;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The extender protocol's messages, {@code k8s.io/kube-scheduler/extender/v1}. Upstream's Go types have no JSON
 * tags, so the keys are the Go field names.
 */
final class Wire {

    private Wire() {}

    /** What kube-scheduler sends to filter and prioritize: the pod and its candidate nodes, by name or in full. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record ExtenderArgs(
            @JsonProperty("Pod") Pod pod,
            @JsonProperty("Nodes") NodeList nodes,
            @JsonProperty("NodeNames") List<String> nodeNames) {}

    /** The filter's answer. Nodes that failed: resolvable (preemption may help) or not. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ExtenderFilterResult(
            @JsonProperty("Nodes") NodeList nodes,
            @JsonProperty("NodeNames") List<String> nodeNames,
            @JsonProperty("FailedNodes") Map<String, String> failedNodes,
            @JsonProperty("FailedAndUnresolvableNodes") Map<String, String> failedAndUnresolvableNodes,
            @JsonProperty("Error") String error) {
        static ExtenderFilterResult error(String message) {
            return new ExtenderFilterResult(null, null, Map.of(), Map.of(), message);
        }
    }

    /** One node's score, 0..10. Written by hand: thousands go out per call, and reflection showed in profiles. */
    @JsonSerialize(using = HostPriority.Writer.class)
    record HostPriority(
            @JsonProperty("Host") String host,
            @JsonProperty("Score") long score) {

        static final class Writer extends StdSerializer<HostPriority> {
            Writer() {
                super(HostPriority.class);
            }

            @Override
            public void serialize(HostPriority p, JsonGenerator out, SerializerProvider provider) throws IOException {
                out.writeStartObject();
                out.writeStringField("Host", p.host());
                out.writeNumberField("Score", p.score());
                out.writeEndObject();
            }
        }
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record ExtenderBindingArgs(
            @JsonProperty("PodName") String podName,
            @JsonProperty("PodNamespace") String podNamespace,
            @JsonProperty("PodUID") String podUid,
            @JsonProperty("Node") String node) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ExtenderBindingResult(@JsonProperty("Error") String error) {}

    /**
     * What kube-scheduler sends to preempt: the preemptor, and for each candidate node the victims its own dry run
     * chose, by uid ({@code nodeCacheCapable}) or as whole pods.
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record ExtenderPreemptionArgs(
            @JsonProperty("Pod") Pod pod,
            @JsonProperty("NodeNameToVictims") Map<String, Victims> nodeNameToVictims,
            @JsonProperty("NodeNameToMetaVictims") Map<String, MetaVictims> nodeNameToMetaVictims) {}

    /** Victims as whole pods, and how many of them are evicted against a PodDisruptionBudget. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Victims(
            @JsonProperty("Pods") List<Pod> pods,
            @JsonProperty("NumPDBViolations") long numPdbViolations) {}

    /** Victims by uid, and how many of them are evicted against a PodDisruptionBudget. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record MetaVictims(
            @JsonProperty("Pods") List<MetaPod> pods,
            @JsonProperty("NumPDBViolations") long numPdbViolations) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    record MetaPod(@JsonProperty("UID") String uid) {}

    /** The preempt verb's answer, always by uid: the nodes left, each with its victims; a node left out is dropped. */
    record ExtenderPreemptionResult(
            @JsonProperty("NodeNameToMetaVictims") Map<String, MetaVictims> nodeNameToMetaVictims) {}
}
