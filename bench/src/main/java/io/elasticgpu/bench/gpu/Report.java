package io.elasticgpu.bench.gpu;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * One JSON object of the check (the whole run's, or one layout's) and the steps that fill it: a step that throws is
 * recorded in {@code errors.<step>} and the next step still runs; how long each took is in {@code stepSeconds}; a step
 * that would start after the run's time budget is spent is skipped, with an error saying so. Thread-safe: two steps
 * that measure nothing about each other's processes may run at once ({@link #parallel}).
 */
final class Report {

    /** One step's work. */
    interface Step {
        void run() throws Exception;
    }

    private final String name;
    private final Map<String, Object> fields = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, String> errors = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, Double> seconds = Collections.synchronizedMap(new LinkedHashMap<>());
    private final long deadlineNanos;

    /**
     * @param name          what the steps' log lines name ({@code run}, or the layout)
     * @param deadlineNanos {@link System#nanoTime()} after which no step starts
     */
    Report(String name, long deadlineNanos) {
        this.name = name;
        this.deadlineNanos = deadlineNanos;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    void put(String key, Object value) {
        fields.put(key, value);
    }

    Object get(String key) {
        return fields.get(key);
    }

    /** A number field as a double, or null when it is absent or not a number. */
    Double number(String key) {
        return fields.get(key) instanceof Number n ? n.doubleValue() : null;
    }

    /** The fields, then {@code errors} when a step failed and {@code stepSeconds}: what the JSON shows. */
    Map<String, Object> json() {
        Map<String, Object> out;
        synchronized (fields) {
            out = new LinkedHashMap<>(fields);
        }
        synchronized (errors) {
            if (!errors.isEmpty()) {
                out.put("errors", new LinkedHashMap<>(errors));
            }
        }
        synchronized (seconds) {
            out.put("stepSeconds", new LinkedHashMap<>(seconds));
        }
        return out;
    }

    boolean failed(String step) {
        return errors.containsKey(step);
    }

    void error(String step, String message) {
        errors.put(step, message);
    }

    /** Runs one step; a failure is recorded and the rest still runs. Returns whether it succeeded. */
    boolean step(String step, Step work) {
        if (GpuIsolationCheck.stopping) {
            errors.put(step, "skipped: the check was being ended");
            return false;
        }
        if (System.nanoTime() > deadlineNanos) {
            errors.put(step, "skipped: the run's time budget was spent before this step");
            System.err.printf("gpu-isolation: %s: step %s skipped: out of time%n", name, step);
            return false;
        }
        long t = System.nanoTime();
        boolean ok = true;
        try {
            work.run();
        } catch (Exception | AssertionError e) {
            ok = false;
            errors.put(step, describe(e));
            System.err.printf("gpu-isolation: %s: step %s failed: %s%n", name, step, describe(e));
        }
        double s = GpuIsolationCheck.round((System.nanoTime() - t) / 1e9, 1);
        seconds.put(step, s);
        System.err.printf("gpu-isolation: %s: step %s took %.1f s%n", name, step, s);
        return ok;
    }

    /** Runs steps at once, each recorded as {@link #step} records it; returns when all have ended. */
    void parallel(Map<String, Step> steps) {
        List<Future<?>> running = new ArrayList<>();
        steps.forEach((step, work) -> {
            FutureTask<Boolean> task = new FutureTask<>(() -> step(step, work));
            Thread.ofVirtual().name("gpu-check-" + step).start(task);
            running.add(task);
        });
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException e) {
                // step() records its own failures
            }
        }
    }

    static String describe(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
