package io.elasticgpu.api.v1alpha1;

/** A pod whose GPU requests make no sense; the message names the container and says what to change. */
public final class InvalidAskException extends RuntimeException {
    public InvalidAskException(String message) {
        super(message);
    }
}
