package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import java.util.List;
import java.util.Map;

/** Writes into a pod what its containers really got (rule 3 of the design: annotations tell the truth). */
@FunctionalInterface
public interface TruthWriter {

    /**
     * @param pod    the pod
     * @param given  the shares each of its containers got so far
     * @param notes  how ambiguities were resolved, per container (may be empty)
     * @param complete whether every container that asked for GPUs has them now
     */
    void record(NodePod pod, Map<String, List<Share>> given, Map<String, String> notes, boolean complete);
}
