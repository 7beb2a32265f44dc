package io.elasticgpu.localcluster.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * One program run by the harness (an upstream one, or an Elastic GPU command): its output goes to a log file,
 * readiness is a probe polled until a deadline, and stopping sends SIGTERM, then SIGKILL to it and anything it
 * started.
 */
public final class ManagedProcess {

    private final String name;
    private final Process process;
    private final Path log;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public static ManagedProcess start(String name, List<String> command, Path log) {
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            return new ManagedProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot start %s (%s): %s".formatted(name, command.getFirst(), e.getMessage()), e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /**
     * @throws IllegalStateException when the process exits or the probe stays false past {@code timeout}, with the
     *                               end of the process's log
     */
    public void awaitReady(Callable<Boolean> probe, Duration timeout) {
        // A process that exits ends the wait at once; the check below tells the two endings apart.
        boolean ready = Poll.until(() -> !process.isAlive() || probe.call(), timeout, Duration.ofMillis(100));
        if (!process.isAlive()) {
            throw new IllegalStateException("%s exited with status %d while starting; the end of %s:%n%s"
                    .formatted(name, process.exitValue(), log, tail(30)));
        }
        if (!ready) {
            String tail = tail(30);
            stop(Duration.ofSeconds(5)); // not left running behind the failure
            throw new IllegalStateException(
                    "%s was not ready after %d s; the end of %s:%n%s".formatted(name, timeout.toSeconds(), log, tail));
        }
    }

    /**
     * {@link #awaitReady} with the probe every component here answers: {@code url} (its {@code /readyz} or
     * {@code /healthz}) returns 200, each try given 2 s.
     */
    public void awaitAnswering(URI url, Duration timeout) {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest get =
                HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(2)).build();
        awaitReady(() -> http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200, timeout);
    }

    /** SIGTERM, up to {@code grace} to exit, then SIGKILL; the same for every process it started. */
    public void stop(Duration grace) {
        stop(process.toHandle(), grace);
    }

    static void stop(ProcessHandle handle, Duration grace) {
        List<ProcessHandle> children = handle.descendants().toList();
        handle.destroy();
        children.forEach(ProcessHandle::destroy);
        try {
            handle.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception notYet) {
            handle.destroyForcibly();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    /** SIGKILL at once, as a crash would. */
    public void kill() {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
