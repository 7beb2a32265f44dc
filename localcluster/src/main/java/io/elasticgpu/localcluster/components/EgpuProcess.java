package io.elasticgpu.localcluster.components;

import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code egpu} command as its own JVM ({@code java -jar cli/target/egpu.jar <command> ...}), serving HTTP on a
 * loopback port chosen here, ready once {@code /readyz} answers 200.
 */
public final class EgpuProcess implements AutoCloseable {

    private final ManagedProcess process;
    private final int port;

    private EgpuProcess(ManagedProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The jar the build made, from {@code -Degpu.jar} (set by the e2e profile). */
    public static Path jar() {
        Path jar = Path.of(System.getProperty("egpu.jar", "../cli/target/egpu.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    "no egpu jar at " + jar + "; build it with ./mvnw -DskipTests -pl cli -am package");
        }
        return jar;
    }

    /**
     * Starts {@code egpu <command> <args> --listen 127.0.0.1:<port>} and waits for {@code /readyz}.
     *
     * @param log where its output goes
     */
    public static EgpuProcess start(String command, List<String> args, Path log) {
        return start(command, args, log, Ports.free());
    }

    /** The same on a given port, e.g. to start again where a killed one listened. */
    public static EgpuProcess start(String command, List<String> args, Path log, int port) {
        return start(command, args, log, port, "--listen");
    }

    /** The same for a command whose HTTP port is set by another flag ({@code egpu controller --http-listen}). */
    public static EgpuProcess start(String command, List<String> args, Path log, int port, String listenFlag) {
        return start(List.of("-Xmx256m", "-XX:+UseSerialGC"), command, args, log, port, listenFlag);
    }

    /** The same with the given JVM options, e.g. those a Helm chart sets. */
    public static EgpuProcess start(
            List<String> jvm, String command, List<String> args, Path log, int port, String listenFlag) {
        return start(jvm, command, args, log, port, listenFlag, Duration.ofSeconds(60));
    }

    /** The same, given {@code ready} to answer {@code /readyz} (a loaded machine, a large cluster to read first). */
    public static EgpuProcess start(
            List<String> jvm,
            String command,
            List<String> args,
            Path log,
            int port,
            String listenFlag,
            Duration ready) {
        return start(List.of(), jvm, command, args, log, port, listenFlag, ready);
    }

    /**
     * The same, the java command line run by {@code launcher} (a command that ends by running its arguments, e.g.
     * one that first enters a memory cgroup).
     */
    public static EgpuProcess start(
            List<String> launcher,
            List<String> jvm,
            String command,
            List<String> args,
            Path log,
            int port,
            String listenFlag,
            Duration ready) {
        List<String> line = new ArrayList<>(launcher);
        line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        line.addAll(jvm);
        line.addAll(List.of("-Dsun.net.httpserver.nodelay=true", "-jar", jar().toString(), command));
        line.addAll(args);
        line.addAll(List.of(listenFlag, "127.0.0.1:" + port));
        ManagedProcess p = ManagedProcess.start(command + "-" + port, line, log);
        HttpClient http = HttpClient.newHttpClient();
        p.awaitReady(
                () -> http.send(
                                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                                                .timeout(Duration.ofSeconds(2))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200,
                ready);
        return new EgpuProcess(p, port);
    }

    public int port() {
        return port;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public ManagedProcess process() {
        return process;
    }

    /** SIGKILL, as a crash. */
    public void kill() {
        process.kill();
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(10));
    }
}
