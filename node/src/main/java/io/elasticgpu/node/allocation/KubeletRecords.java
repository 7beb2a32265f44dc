package io.elasticgpu.node.allocation;

import java.util.List;
import java.util.Map;

/** What kubelet says it handed out: device ids per resource per container (its pod-resources API). */
@FunctionalInterface
public interface KubeletRecords {

    /** Only containers holding at least one device of the agent's resources are listed. */
    Map<ContainerKey, Map<String, List<String>>> list();
}
