package io.elasticgpu.simulator.trace;

import java.nio.file.Path;

/** A trace file that cannot be read as what it claims to be; the message names the file, line and column. */
public final class TraceFormatException extends RuntimeException {

    public TraceFormatException(Path file, int line, String column, String problem) {
        super("%s:%d: column %s: %s".formatted(file, line, column, problem));
    }

    public TraceFormatException(Path file, String problem) {
        super("%s: %s".formatted(file, problem));
    }
}
