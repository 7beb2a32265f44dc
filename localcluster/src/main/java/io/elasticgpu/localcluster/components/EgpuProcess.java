package io.elasticgpu.localcluster.components;

import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import java.net.URI;
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
     * Starts {@code egpu <command> <args>} listening on a free loopback port, with the JVM options of a test
     * component, and waits up to a minute for {@code /readyz}.
     *
     * @param log where its output goes
     */
    public static EgpuProcess start(String command, List<String> args, Path log) {
        return launch(command, args, log).start();
    }

    /** The same, to be changed first: {@link Launch#port}, {@link Launch#jvm}, {@link Launch#launcher}, ... */
    public static Launch launch(String command, List<String> args, Path log) {
        return new Launch(List.of(), TEST_JVM, command, args, log, 0, Duration.ofSeconds(60));
    }

    private static final List<String> TEST_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC");

    /**
     * How to start one {@code egpu} command.
     *
     * @param launcher a command that ends by running its arguments (one that first enters a memory cgroup), or none
     * @param jvm      the JVM's options, e.g. those a Helm chart sets
     * @param port     the loopback port it listens on (its {@code --listen}, the controller's {@code --http-listen});
     *                 0 for a free one
     * @param ready    how long {@code /readyz} may take (a loaded machine, a large cluster to read first)
     */
    public record Launch(
            List<String> launcher,
            List<String> jvm,
            String command,
            List<String> args,
            Path log,
            int port,
            Duration ready) {
        public Launch {
            launcher = List.copyOf(launcher);
            jvm = List.copyOf(jvm);
            args = List.copyOf(args);
        }

        /** On a given port, e.g. to start again where a killed one listened. */
        public Launch port(int onPort) {
            return new Launch(launcher, jvm, command, args, log, onPort, ready);
        }

        public Launch jvm(List<String> options) {
            return new Launch(launcher, options, command, args, log, port, ready);
        }

        public Launch launcher(List<String> prefix) {
            return new Launch(prefix, jvm, command, args, log, port, ready);
        }

        public Launch ready(Duration within) {
            return new Launch(launcher, jvm, command, args, log, port, within);
        }

        /** Starts it and waits for {@code /readyz}. */
        public EgpuProcess start() {
            int listen = port == 0 ? Ports.free() : port;
            String listenFlag = command.equals("controller") ? "--http-listen" : "--listen";
            List<String> line = new ArrayList<>(launcher);
            line.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            line.addAll(jvm);
            line.addAll(List.of("-Dsun.net.httpserver.nodelay=true", "-jar", jar().toString(), command));
            line.addAll(args);
            line.addAll(List.of(listenFlag, "127.0.0.1:" + listen));
            ManagedProcess p = ManagedProcess.start(command + "-" + listen, line, log);
            p.awaitAnswering(URI.create("http://127.0.0.1:" + listen + "/readyz"), ready);
            return new EgpuProcess(p, listen);
        }
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
