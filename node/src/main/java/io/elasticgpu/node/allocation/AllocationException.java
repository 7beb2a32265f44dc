package io.elasticgpu.node.allocation;

/** kubelet's request cannot be answered without breaking a rule; the message says why and what to check. */
public final class AllocationException extends RuntimeException {

    public AllocationException(String message) {
        super(message);
    }
}
