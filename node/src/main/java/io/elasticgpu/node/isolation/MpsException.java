package io.elasticgpu.node.isolation;

/** The MPS control program or a daemon failed; the message names the share's directory and what the program said. */
public final class MpsException extends RuntimeException {

    public MpsException(String message) {
        super(message);
    }

    public MpsException(String message, Throwable cause) {
        super(message, cause);
    }
}
