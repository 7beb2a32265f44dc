package io.elasticgpu.node.kubelet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Where the kubelet-driver program is, or why there is none. Found from the system property {@value #PROPERTY}, else
 * built if needed and located by {@code bench/peers/kubelet-driver/build --print-path} (the lab keeps its peers, and
 * the driver is one: it is no part of the shipped node module), which prints the build's progress to stderr (a cold
 * build compiles kubelet packages for minutes; later ones find the binary in the cache). The build's Maven
 * configuration passes the script as {@value #SCRIPT_PROPERTY}.
 */
public sealed interface DriverBinary {

    /** A kubelet-driver binary to use instead of building one. */
    String PROPERTY = "egpu.kubelet.driver";
    /** The build script; without it, looked for from the working directory (a module's or the repository root). */
    String SCRIPT_PROPERTY = "egpu.kubelet.driver.build";
    /** Where the build script is in the repository. */
    String SCRIPT = "bench/peers/kubelet-driver/build";
    /** The build script's exit status when the binary must be built and Go is not installed. */
    int GO_MISSING = 3;

    record Found(Path path) implements DriverBinary {}

    /** Go is needed to build the driver and is not installed; {@code message} says so and what to do. */
    record GoMissing(String message) implements DriverBinary {}

    /**
     * @throws IllegalStateException when {@value #PROPERTY} names no executable, the build script is not found, or the
     *         build fails (with the end of its output)
     */
    /**
     * The driver for a test class: found or built; without Go the class is skipped (aborted) with the build
     * script's message, or fails when {@code -Degpu.kubelet.driver.required=true}.
     */
    static Path requireOrSkip() {
        return switch (locate()) {
            case Found(Path path) -> path;
            case GoMissing(String message) -> {
                if (Boolean.getBoolean("egpu.kubelet.driver.required")) {
                    org.junit.jupiter.api.Assertions.fail(message);
                }
                org.junit.jupiter.api.Assumptions.abort("kubelet-driver unavailable, skipping: " + message);
                yield null;
            }
        };
    }

    static DriverBinary locate() {
        String configured = System.getProperty(PROPERTY, "");
        if (!configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(
                        "-D%s=%s: no executable there; build one with bench/peers/kubelet-driver/build --print-path"
                                .formatted(PROPERTY, configured));
            }
            return new Found(path);
        }
        return build(script());
    }

    private static Path script() {
        String configured = System.getProperty(SCRIPT_PROPERTY, "");
        Path cwd = Path.of("").toAbsolutePath();
        List<Path> candidates = configured.isBlank()
                ? List.of(cwd.resolve(SCRIPT), cwd.resolveSibling(SCRIPT))
                : List.of(Path.of(configured));
        return candidates.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("cannot find " + SCRIPT
                        + (" (tried %s); run the tests from the repository or a module of it, or set -D%s=<binary> or "
                                        + "-D%s=<script>")
                                .formatted(candidates, PROPERTY, SCRIPT_PROPERTY)));
    }

    private static DriverBinary build(Path script) {
        Process process;
        try {
            process = new ProcessBuilder(script.toString(), "--print-path").start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + script, e);
        }
        Deque<String> tail = new ArrayDeque<>();
        Thread progress = Thread.ofPlatform()
                .daemon()
                .name("kubelet-driver-build")
                .start(() -> {
                    try (BufferedReader err = process.errorReader(StandardCharsets.UTF_8)) {
                        for (String line; (line = err.readLine()) != null; ) {
                            System.err.println(line);
                            synchronized (tail) {
                                tail.addLast(line);
                                if (tail.size() > 40) {
                                    tail.removeFirst();
                                }
                            }
                        }
                    } catch (IOException e) {
                        System.err.println("kubelet-driver build: lost its stderr: " + e);
                    }
                });
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            process.getOutputStream().close();
            String printed = out.readAllAsString().strip();
            int status = process.waitFor();
            progress.join();
            String output;
            synchronized (tail) {
                output = String.join("\n", tail);
            }
            if (status == GO_MISSING) {
                return new GoMissing(output);
            }
            if (status != 0 || printed.isEmpty()) {
                throw new IllegalStateException(
                        "%s --print-path failed with status %d:%n%s".formatted(script, status, output));
            }
            return new Found(Path.of(printed));
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + script + " --print-path", e);
        } catch (InterruptedException e) {
            process.destroy();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the kubelet driver", e);
        }
    }
}
