package io.elasticgpu.node.kubelet;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubelet's own device manager and pod-resources server, in a child process ({@code bench/peers/kubelet-driver}),
 * for a device plugin to register with and be allocated from exactly as on a node. The device manager listens on
 * {@link #kubeletSocket()} in {@link #pluginDir()}, where plugins put their sockets and kubelet its checkpoint; the
 * pod-resources v1 API is on {@link #podResourcesSocket()}. Both live in a temporary directory removed on
 * {@link #close()}.
 *
 * <p>Methods are synchronized: the driver runs one command at a time, as kubelet admits one pod at a time. Each
 * waits for the driver's answer and throws {@link IllegalStateException} with the driver's error when the command
 * itself failed, or with the driver's last stderr lines when it died. The driver logs kubelet's errors to this
 * class's logger; {@code -D}{@value #VERBOSITY_PROPERTY}{@code =4} makes kubelet verbose.
 */
public final class KubeletDriver implements AutoCloseable {

    /** Kubelet's log verbosity (klog {@code -v}); unset means errors only. */
    public static final String VERBOSITY_PROPERTY = "egpu.kubelet.driver.v";

    private static final Logger LOG = LoggerFactory.getLogger(KubeletDriver.class);
    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Duration STARTUP = Duration.ofSeconds(30);
    private static final Duration ANSWER = Duration.ofSeconds(60);
    private static final Duration EXIT = Duration.ofSeconds(10);
    /** Put on the answer queue when the driver's stdout ends. */
    private static final String EOF = "\u0000EOF";

    private final Path workDir;
    private final Path pluginDir;
    private final Path podResourcesSocket;
    private final Process process;
    private final BufferedWriter commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final Thread stdoutReader;
    private final Thread stderrReader;
    private boolean closed;

    private KubeletDriver(Path binary, Path dir, Dra dra) throws IOException {
        // Unix socket paths must stay under 108 bytes, so the directory is short and in the system temp dir.
        workDir =
                dir != null ? dir : Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "kubelet");
        pluginDir = pluginDirIn(workDir);
        podResourcesSocket = podResourcesSocketIn(workDir);
        Files.createDirectories(pluginDir);
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--plugin-dir",
                pluginDir.toString(),
                "--pod-resources-socket",
                podResourcesSocket.toString()));
        if (dra != null) {
            Files.createDirectories(pluginsRegistry());
            Files.createDirectories(draStateDir());
            command.addAll(List.of(
                    "--kubeconfig",
                    dra.kubeconfig().toString(),
                    "--node-name",
                    dra.nodeName(),
                    "--plugins-registry",
                    pluginsRegistry().toString(),
                    "--dra-state-dir",
                    draStateDir().toString()));
        }
        String verbosity = System.getProperty(VERBOSITY_PROPERTY, "");
        if (!verbosity.isBlank()) {
            command.addAll(List.of("-v", verbosity));
        }
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            deleteRecursively(workDir);
            throw e;
        }
        commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        stdoutReader =
                Thread.ofPlatform().daemon().name("kubelet-driver-stdout").start(this::readAnswers);
        stderrReader =
                Thread.ofPlatform().daemon().name("kubelet-driver-stderr").start(this::readLogs);
    }

    /**
     * Starts the driver found or built by {@link DriverBinary#locate()}.
     *
     * @throws IllegalStateException when Go is needed to build it and missing, saying so
     */
    public static KubeletDriver start() {
        return switch (DriverBinary.locate()) {
            case DriverBinary.Found(Path path) -> start(path);
            case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
        };
    }

    /** Starts {@code binary} and waits until both its servers listen. */
    public static KubeletDriver start(Path binary) {
        return start(binary, null, null);
    }

    /**
     * Starts {@code binary} with kubelet's DRA manager too, reading claims from the API server of
     * {@code dra.kubeconfig()} as node {@code dra.nodeName()}; DRA drivers register through {@link #pluginsRegistry()}.
     */
    public static KubeletDriver startWithDra(Path binary, Dra dra) {
        return start(binary, null, requireNonNull(dra, "dra"));
    }

    /** What kubelet's DRA manager needs: the API server (kubelet's kubeconfig) and the node it runs as. */
    public record Dra(Path kubeconfig, String nodeName) {
        public Dra {
            requireNonNull(kubeconfig, "kubeconfig");
            requireNonNull(nodeName, "nodeName");
        }
    }

    /** Where a driver started in {@code workDir} puts its device-plugins directory. */
    public static Path pluginDirIn(Path workDir) {
        return workDir.resolve("device-plugins");
    }

    /** Where a driver started in {@code workDir} serves pod-resources. */
    public static Path podResourcesSocketIn(Path workDir) {
        return workDir.resolve("pod-resources").resolve("kubelet.sock");
    }

    /**
     * Starts {@code binary} in {@code workDir} (short; created by the caller, or null for a new temporary one), as
     * kubelet starting on a node where plugins may already be waiting; deleted on {@link #close}.
     */
    public static KubeletDriver start(Path binary, Path workDir) {
        return start(binary, workDir, null);
    }

    private static KubeletDriver start(Path binary, Path workDir, Dra dra) {
        requireNonNull(binary, "binary");
        KubeletDriver driver;
        try {
            driver = new KubeletDriver(binary, workDir, dra);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start kubelet-driver " + binary, e);
        }
        try {
            JsonNode ready = driver.next("startup", STARTUP);
            if (!"ready".equals(ready.path("event").asText())) {
                throw new IllegalStateException("kubelet-driver " + binary + " said " + ready + " instead of ready");
            }
            return driver;
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
    }

    /** Where plugins put their sockets and kubelet its checkpoint. */
    public Path pluginDir() {
        return pluginDir;
    }

    /** The device manager's registration socket, {@code kubelet.sock} in {@link #pluginDir()}. */
    public Path kubeletSocket() {
        return pluginDir.resolve("kubelet.sock");
    }

    /** Kubelet's plugin registration directory ({@code /var/lib/kubelet/plugins_registry}), watched with DRA on. */
    public Path pluginsRegistry() {
        return workDir.resolve("plugins_registry");
    }

    /** Where kubelet's DRA manager keeps its checkpoint (kubelet's root directory). */
    public Path draStateDir() {
        return workDir.resolve("dra");
    }

    /** Kubelet's pod-resources API (v1, and v1alpha1). */
    public Path podResourcesSocket() {
        return podResourcesSocket;
    }

    /**
     * Kubelet admitting {@code pod} and starting its containers: the device manager allocates for every init then
     * app container (calling the plugins' Allocate) and hands out each container's options (calling PreStartContainer
     * where asked). With DRA on, the pod's ResourceClaims are prepared by their drivers and each container gets
     * their CDI devices; the pod, as read from the API server (with its status), needs them allocated and reserved
     * for it. The pod needs {@code metadata.uid}.
     */
    public synchronized Admission admit(Pod pod) {
        ObjectNode command = command("admit");
        try {
            command.set("pod", JSON.readTree(Serialization.asJson(pod)));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serialize pod " + pod.getMetadata().getName(), e);
        }
        return admission(send(command, ANSWER));
    }

    /** Kubelet retrying SyncPod for the active pod {@code uid}: its claims prepared again, its containers' options. */
    public synchronized Admission sync(String uid) {
        ObjectNode command = command("sync");
        command.put("uid", uid);
        return admission(send(command, ANSWER));
    }

    private static Admission admission(JsonNode answer) {
        if (answer.path("ok").asBoolean()) {
            Map<String, ContainerResult> containers = JSON.convertValue(
                    answer.path("containers"),
                    JSON.getTypeFactory().constructMapType(Map.class, String.class, ContainerResult.class));
            return new Admission.Admitted(containers);
        }
        String reason = answer.path("reason").asText("");
        String error = answer.path("error").asText("");
        if (reason.equals(Admission.NotPrepared.REASON)) {
            return new Admission.NotPrepared(error);
        }
        if (answer.hasNonNull("container")) {
            return new Admission.ContainerNotStarted(answer.get("container").asText(), reason, error);
        }
        if (reason.isEmpty()) { // the driver refused the command itself (no uid, say), kubelet never saw the pod
            throw new IllegalStateException("kubelet-driver: " + error);
        }
        return new Admission.Rejected(reason, error);
    }

    /**
     * The pod with {@code uid} terminated: with DRA on its claims are unprepared first (kubelet keeps the pod, and
     * this throws, while that fails); its devices are free from the next allocation or pod-resources List.
     */
    public synchronized void remove(String uid) {
        ObjectNode command = command("remove");
        command.put("uid", uid);
        requireOk(send(command, ANSWER));
    }

    /** What kubelet would report in the node's status now. */
    public synchronized Capacity capacity() {
        return capacityOf(requireOk(send(command("capacity"), ANSWER)));
    }

    /**
     * Waits until kubelet reports {@code allocatable} healthy devices of {@code resource} (a plugin registered and
     * listed them, say) and returns the capacity then.
     *
     * @throws IllegalStateException after {@code timeout}, with the allocatable count seen last
     */
    public synchronized Capacity await(String resource, long allocatable, Duration timeout) {
        ObjectNode command = command("await");
        command.put("resource", resource).put("allocatable", allocatable).put("timeoutMs", timeout.toMillis());
        return capacityOf(requireOk(send(command, timeout.plus(ANSWER))));
    }

    /**
     * The health of the active pod {@code uid}'s DRA devices as kubelet writes it into its container statuses
     * ({@code allocatedResourcesStatus}), from what the drivers stream to kubelet: by container, one entry per claim.
     */
    public synchronized Map<String, List<ResourceStatus>> health(String uid) {
        ObjectNode command = command("health");
        command.put("uid", uid);
        JsonNode answer = requireOk(send(command, ANSWER));
        return JSON.convertValue(answer.path("health"), new TypeReference<Map<String, List<ResourceStatus>>>() {});
    }

    /**
     * Waits until a plugin of DRA {@code driver} has registered through {@link #pluginsRegistry()} and is usable.
     *
     * @throws IllegalStateException after {@code timeout}
     */
    public synchronized void awaitDriver(String driver, Duration timeout) {
        awaitDriver(driver, true, timeout);
    }

    /** Waits until no plugin of DRA {@code driver} is registered any more (its registration socket went, say). */
    public synchronized void awaitNoDriver(String driver, Duration timeout) {
        awaitDriver(driver, false, timeout);
    }

    private void awaitDriver(String driver, boolean registered, Duration timeout) {
        ObjectNode command = command("awaitDriver");
        command.put("driver", driver).put("registered", registered).put("timeoutMs", timeout.toMillis());
        requireOk(send(command, timeout.plus(ANSWER)));
    }

    /**
     * Kubelet restarting with its pods still running: a new device manager reads the checkpoint, listens on a new
     * {@link #kubeletSocket()}, and has removed every other socket in {@link #pluginDir()}, so plugins must serve
     * again and register again. The pod-resources server keeps running. With DRA on, a new DRA manager reads its
     * checkpoint, wipes the node's ResourceSlices (as kubelet does at startup) and re-registers the DRA drivers whose
     * sockets are still in {@link #pluginsRegistry()}.
     */
    public synchronized void restart() {
        requireOk(send(command("restart"), ANSWER));
    }

    /** Stops the driver (asking first, then killing), and removes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process.isAlive()) {
                try {
                    send(command("stop"), EXIT);
                } catch (RuntimeException e) {
                    LOG.warn("kubelet-driver did not stop when asked: {}", e.getMessage());
                }
            }
            if (!process.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroy();
                if (!process.waitFor(EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
            stdoutReader.join(EXIT.toMillis());
            stderrReader.join(EXIT.toMillis());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            deleteRecursively(workDir);
        }
    }

    private static ObjectNode command(String op) {
        return JSON.createObjectNode().put("op", op);
    }

    private JsonNode send(ObjectNode command, Duration timeout) {
        String op = command.path("op").asText();
        if (!process.isAlive()) {
            throw died(op);
        }
        try {
            commands.write(JSON.writeValueAsString(command));
            commands.newLine();
            commands.flush();
        } catch (IOException e) {
            throw died(op);
        }
        return next(op, timeout);
    }

    private JsonNode next(String waitingFor, Duration timeout) {
        String line;
        try {
            line = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for kubelet-driver to answer " + waitingFor, e);
        }
        if (line == null) {
            throw new IllegalStateException("kubelet-driver did not answer %s within %s; its last stderr:%n%s"
                    .formatted(waitingFor, timeout, stderrTail()));
        }
        if (line.equals(EOF)) {
            answers.add(EOF); // for whoever asks next
            throw died(waitingFor);
        }
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "kubelet-driver answered %s with a line that is not JSON: %s".formatted(waitingFor, line), e);
        }
    }

    private static JsonNode requireOk(JsonNode answer) {
        if (!answer.path("ok").asBoolean()) {
            throw new IllegalStateException(
                    "kubelet-driver: " + answer.path("error").asText(answer.toString()));
        }
        return answer;
    }

    private static Capacity capacityOf(JsonNode answer) {
        return JSON.convertValue(answer, Capacity.class);
    }

    private IllegalStateException died(String waitingFor) {
        String status = process.isAlive() ? "its stdout closed" : "status " + process.exitValue();
        try {
            stderrReader.join(EXIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new IllegalStateException("kubelet-driver ended (%s) while %s was asked; its last stderr:%n%s"
                .formatted(status, waitingFor, stderrTail()));
    }

    private String stderrTail() {
        synchronized (stderrTail) {
            return stderrTail.isEmpty() ? "(nothing)" : String.join("\n", stderrTail);
        }
    }

    private void readAnswers() {
        try (BufferedReader out = process.inputReader(StandardCharsets.UTF_8)) {
            for (String line; (line = out.readLine()) != null; ) {
                answers.add(line);
            }
        } catch (IOException e) {
            LOG.warn("lost kubelet-driver's stdout: {}", e.toString());
        } finally {
            answers.add(EOF);
        }
    }

    private void readLogs() {
        try (BufferedReader err = process.errorReader(StandardCharsets.UTF_8)) {
            for (String line; (line = err.readLine()) != null; ) {
                LOG.info("kubelet-driver: {}", line);
                synchronized (stderrTail) {
                    stderrTail.addLast(line);
                    if (stderrTail.size() > 40) {
                        stderrTail.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            LOG.warn("lost kubelet-driver's stderr: {}", e.toString());
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", dir, e.toString());
        }
    }
}
