package io.elasticgpu.controller.view;

/**
 * One container's share of one card: what it is <em>granted</em> ({@code memoryMib}, and {@code percent} of the card's
 * compute, a whole card: 100) and what it <em>uses</em> as the node agent last measured it ({@code usedMemoryMib},
 * {@code smPercent}). {@code phase} is the pod's {@code elasticgpu.io/phase}: {@code assumed} (cards chosen, not yet
 * given by kubelet), {@code allocated}, {@code terminating} (being deleted), {@code dra} (a DRA claim's), or
 * {@code unknown} when the annotation is missing.
 *
 * @param usedMemoryMib memory its processes hold on the card (0 when it runs none there); -1 when unknown: the node
 *                      publishes no readable {@code elasticgpu.io/usage}
 * @param smPercent     the card's SM utilization its processes account for; -1 when unknown: no readable usage, or
 *                      NVML names none of its processes
 */
public record Holder(
        String namespace,
        String pod,
        String container,
        long memoryMib,
        int percent,
        String phase,
        long usedMemoryMib,
        int smPercent) {

    /** Use not measured. */
    public Holder(String namespace, String pod, String container, long memoryMib, int percent, String phase) {
        this(namespace, pod, container, memoryMib, percent, phase, -1, -1);
    }

    /** {@code namespace/pod}. */
    public String podName() {
        return namespace + "/" + pod;
    }

    /** Whether its processes hold more memory on the card than it was granted there. */
    public boolean usesMoreThanGranted() {
        return usedMemoryMib > memoryMib;
    }

    Holder withUse(long usedMemoryMib, int smPercent) {
        return new Holder(namespace, pod, container, memoryMib, percent, phase, usedMemoryMib, smPercent);
    }
}
