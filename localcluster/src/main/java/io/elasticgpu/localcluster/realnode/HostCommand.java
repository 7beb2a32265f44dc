package io.elasticgpu.localcluster.realnode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A short external command (ctr, ip, umount) run to completion within a timeout, its output kept. */
final class HostCommand {

    /** What a command did: its exit status (-1 when it timed out and was killed) and its merged output. */
    record Result(List<String> command, int status, String output) {
        boolean succeeded() {
            return status == 0;
        }

        /** The output; throws naming the command and what it printed when it failed. */
        String orThrow() {
            if (!succeeded()) {
                throw new IllegalStateException("%s %s: %s"
                        .formatted(
                                String.join(" ", command),
                                status < 0 ? "timed out" : "exited with status " + status,
                                output.strip()));
            }
            return output;
        }
    }

    private HostCommand() {}

    static Result run(List<String> command, Duration timeout) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run %s: %s".formatted(command.getFirst(), e.getMessage()), e);
        }
        var output = new java.io.ByteArrayOutputStream();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (var in = p.getInputStream()) {
                in.transferTo(output);
            } catch (IOException ignored) {
                // the process was killed; what it printed so far is kept
            }
        });
        try {
            p.getOutputStream().close();
            boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
            reader.join(Duration.ofSeconds(5));
            return new Result(command, ended ? p.exitValue() : -1, output.toString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.getFirst(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
