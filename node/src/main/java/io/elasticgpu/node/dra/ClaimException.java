package io.elasticgpu.node.dra;

/** A claim that cannot be prepared as asked; the message names the claim and what is wrong, for kubelet's event. */
public final class ClaimException extends RuntimeException {

    public ClaimException(String message) {
        super(message);
    }
}
