package io.elasticgpu.http;

/**
 * A caller's mistake: answered with {@link #status()} (a 4xx) and the message, which must say what to change.
 * Handlers throw it; {@link HttpEndpoint} turns it into the response and the process keeps serving.
 */
public final class BadRequest extends RuntimeException {

    private final int status;

    public BadRequest(String message) {
        this(400, message);
    }

    public BadRequest(int status, String message) {
        super(message);
        if (status < 400 || status > 499) {
            throw new IllegalArgumentException("a BadRequest is a 4xx, not " + status);
        }
        this.status = status;
    }

    public BadRequest(String message, Throwable cause) {
        super(message, cause);
        this.status = 400;
    }

    public int status() {
        return status;
    }
}
