package io.elasticgpu.node.discovery;

/** The GPUs could not be discovered or watched; the message says what failed and what to check. */
public final class DiscoveryException extends RuntimeException {

    public DiscoveryException(String message) {
        super(message);
    }

    public DiscoveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
