package io.elasticgpu.node.allocation;

/** A pod as kubelet's pod-resources API names it (it has no uid): a set key that needs no string built. */
record PodName(String namespace, String name) {

    static PodName of(ContainerKey k) {
        return new PodName(k.namespace(), k.pod());
    }

    static PodName of(NodePod p) {
        return new PodName(p.namespace(), p.name());
    }
}
