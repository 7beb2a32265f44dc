package io.elasticgpu.cli;

import java.io.PrintWriter;

/**
 * One line of progress on stderr for jobs that take more than a few seconds: silent for the first
 * {@value #QUIET_MS} ms, then at most one update every {@value #EVERY_MS} ms, rewritten in place on a terminal.
 */
final class ProgressLine {

    static final long QUIET_MS = 3_000;
    static final long EVERY_MS = 1_000;

    private final PrintWriter err;
    private final boolean terminal = System.console() != null;
    private final long start = System.nanoTime();
    private long last;
    private boolean shown;

    ProgressLine(PrintWriter err) {
        this.err = err;
    }

    synchronized void update(String line) {
        long now = (System.nanoTime() - start) / 1_000_000;
        if (now < QUIET_MS || now - last < EVERY_MS) {
            return;
        }
        last = now;
        shown = true;
        err.print(terminal ? "\r\033[K" + line : line + System.lineSeparator());
        err.flush();
    }

    synchronized void clear() {
        if (shown && terminal) {
            err.print("\r\033[K");
            err.flush();
        }
    }
}
