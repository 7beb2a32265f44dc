package io.elasticgpu.node.allocation;

import static java.util.Objects.requireNonNull;

/** A container of a pod, named the way kubelet's pod-resources API names it (it has no pod uid). */
public record ContainerKey(String namespace, String pod, String container) {

    public ContainerKey {
        requireNonNull(namespace, "namespace");
        requireNonNull(pod, "pod");
        requireNonNull(container, "container");
    }

    @Override
    public String toString() {
        return namespace + "/" + pod + "/" + container;
    }
}
