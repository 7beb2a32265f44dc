package io.elasticgpu.controller.view;

/**
 * One container's share of one card. {@code percent} is the share of the card's compute (a whole card: 100);
 * {@code phase} is the pod's {@code elasticgpu.io/phase}: {@code assumed} (cards chosen, not yet given by kubelet),
 * {@code allocated}, or {@code unknown} when the annotation is missing.
 */
public record Holder(String namespace, String pod, String container, long memoryMib, int percent, String phase) {

    /** {@code namespace/pod}. */
    public String podName() {
        return namespace + "/" + pod;
    }
}
