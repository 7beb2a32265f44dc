package io.elasticgpu.node.allocation;

import java.util.List;

/** The pods bound to this node, from the API server. */
public interface PodSource {

    /** What the watch has seen; cheap. */
    List<NodePod> pods();

    /** A fresh list from the API server, for when the watch may lag behind kubelet; slower. */
    List<NodePod> refresh();
}
