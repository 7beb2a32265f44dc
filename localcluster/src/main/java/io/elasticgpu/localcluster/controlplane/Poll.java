package io.elasticgpu.localcluster.controlplane;

import java.time.Duration;
import java.util.concurrent.Callable;

/** Waiting for a condition with a deadline: the one place the harness sleeps. */
public final class Poll {

    private Poll() {}

    /** Checks every {@code interval} until {@code condition} is true; false if {@code timeout} passes first. */
    public static boolean until(Callable<Boolean> condition, Duration timeout, Duration interval) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return true;
                }
            } catch (Exception notYet) {
                // not ready: connection refused, 503, ...
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(interval);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    public static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
