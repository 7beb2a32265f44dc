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
 * @param tflops        what it asked in TFLOPS and what its share gives, when it asked compute so; null otherwise
 */
public record Holder(
        String namespace,
        String pod,
        String container,
        long memoryMib,
        int percent,
        String phase,
        long usedMemoryMib,
        int smPercent,

        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        Tflops tflops) {

    /** Compute asked in TFLOPS: {@code asked} of {@code precision}; the share on the card gives {@code given}. */
    public record Tflops(int asked, String precision, double given) {}

    /** Use measured, compute asked as a share. */
    public Holder(
            String namespace,
            String pod,
            String container,
            long memoryMib,
            int percent,
            String phase,
            long usedMemoryMib,
            int smPercent) {
        this(namespace, pod, container, memoryMib, percent, phase, usedMemoryMib, smPercent, null);
    }

    /** Use not measured. */
    public Holder(String namespace, String pod, String container, long memoryMib, int percent, String phase) {
        this(namespace, pod, container, memoryMib, percent, phase, -1, -1, null);
    }

    /** The same holder with what it asked in TFLOPS, when its share records an ask in TFLOPS. */
    Holder withTflops(io.elasticgpu.api.v1alpha1.PodGrant.Share share) {
        return share.asksTflops()
                ? new Holder(
                        namespace,
                        pod,
                        container,
                        memoryMib,
                        percent,
                        phase,
                        usedMemoryMib,
                        smPercent,
                        new Tflops(share.tflops(), share.precision(), share.tflopsGiven()))
                : this;
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
        return new Holder(namespace, pod, container, memoryMib, percent, phase, usedMemoryMib, smPercent, tflops);
    }
}
