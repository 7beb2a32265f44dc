package io.elasticgpu.localcluster.realnode;

import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code egpu node-agent} on a {@link RealNode}, as its own JVM, with simulated cards or an NVML (a stand-in one in
 * tests): in device-plugin mode it registers with the node's kubelet through {@code /var/lib/kubelet/device-plugins}
 * and reads its pod-resources socket; in DRA mode it registers through kubelet's plugin registration directory and
 * writes CDI specs where the node's containerd reads them. Ready once its {@code /healthz} answers; whether kubelet
 * took it up is for the caller to wait for (the node's allocatable, or its ResourceSlice).
 */
public final class RealNodeAgent implements AutoCloseable {

    /** How kubelet is offered the cards: the agent's {@code --api}. */
    public enum Api {
        DEVICE_PLUGIN,
        DRA
    }

    /** The DRA driver's name, which names its directory under kubelet's plugins. */
    public static final String DRA_DRIVER = "gpu.elasticgpu.io";

    private static final AtomicInteger STARTS = new AtomicInteger();
    private final List<String> command;
    private final String name;
    private final int port;
    private volatile ManagedProcess process;

    private RealNodeAgent(List<String> command, String name, int port) {
        this.command = command;
        this.name = name;
        this.port = port;
    }

    /** Where the agent's cards come from. */
    public sealed interface Cards {

        /** {@code --backend simulated --simulated-gpus file}. */
        record Simulated(Path file) implements Cards {}

        /**
         * {@code --backend nvml --nvml-library library}, the agent started with {@code environment} (a stand-in
         * NVML's configuration, {@code NVML_STUB_CONFIG}).
         */
        record Nvml(Path library, Map<String, String> environment) implements Cards {}
    }

    /**
     * Starts the agent and waits for its {@code /healthz}.
     *
     * @param simulatedGpus the cards ({@code --simulated-gpus} YAML)
     * @param extra         more options, e.g. {@code --isolation mps ...}
     */
    public static RealNodeAgent start(
            RealNode node, ControlPlane controlPlane, Api api, Path simulatedGpus, List<String> extra) {
        return start(node, controlPlane, api, new Cards.Simulated(simulatedGpus), extra);
    }

    /** Starts the agent on {@code cards} and waits for its {@code /healthz}. */
    public static RealNodeAgent start(
            RealNode node, ControlPlane controlPlane, Api api, Cards cards, List<String> extra) {
        int port = Ports.free();
        List<String> line = new ArrayList<>();
        if (cards instanceof Cards.Nvml nvml && !nvml.environment().isEmpty()) {
            line.add("env");
            nvml.environment().forEach((k, v) -> line.add(k + "=" + v));
        }
        line.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-jar",
                EgpuProcess.jar().toString(),
                "node-agent",
                "--node-name",
                node.name(),
                "--kubeconfig",
                controlPlane.kubeconfig().toString(),
                "--metrics-listen",
                "127.0.0.1:" + port));
        line.addAll(
                switch (cards) {
                    case Cards.Simulated sim ->
                        List.of(
                                "--backend",
                                "simulated",
                                "--simulated-gpus",
                                sim.file().toString());
                    case Cards.Nvml nvml ->
                        List.of(
                                "--backend",
                                "nvml",
                                "--nvml-library",
                                nvml.library().toString());
                });
        NodeLayout layout = node.layout();
        line.addAll(
                switch (api) {
                    case DEVICE_PLUGIN ->
                        List.of(
                                "--device-plugin-dir",
                                NodeLayout.DEVICE_PLUGINS.toString(),
                                "--pod-resources-socket",
                                layout.podResourcesSocket().toString());
                    case DRA ->
                        List.of(
                                "--api",
                                "dra",
                                "--dra-plugin-dir",
                                layout.pluginDir(DRA_DRIVER).toString(),
                                "--plugin-registration-dir",
                                layout.pluginsRegistry().toString(),
                                "--cdi-dir",
                                layout.cdiDir().toString());
                });
        line.addAll(extra);
        RealNodeAgent agent = new RealNodeAgent(List.copyOf(line), "node-agent-" + STARTS.incrementAndGet(), port);
        agent.launch(controlPlane.workDir().resolve("logs").resolve(agent.name + ".log"));
        return agent;
    }

    private void launch(Path log) {
        ManagedProcess p = ManagedProcess.start(name, command, log);
        process = p;
        p.awaitAnswering(URI.create("http://127.0.0.1:" + port + "/healthz"), Duration.ofSeconds(90));
    }

    /** SIGKILL, as a crash: no socket removed, nothing said to kubelet. */
    public void kill() {
        process.kill();
    }

    /** Starts the same agent again (same options and port) after {@link #kill} or {@link #close}. */
    public void restart() {
        launch(process.log());
    }

    public ManagedProcess process() {
        return process;
    }

    /** Where it serves {@code /metrics} and {@code /healthz}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(10));
    }
}
