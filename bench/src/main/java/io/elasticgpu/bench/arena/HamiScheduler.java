package io.elasticgpu.bench.arena;

import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HAMi's scheduler extender (v2.10.0) beside a control plane, run as HAMi's chart runs it: its own binary, built from
 * the peer source by {@code bench/bin/build-hami}, with the NVIDIA device configuration and the node and GPU policies
 * given; and the {@code KubeSchedulerConfiguration} HAMi's chart gives its kube-scheduler (filter and bind by the
 * extender, HAMi's resources managed by it and ignored by kube-scheduler), under the profile name HAMi's webhook puts
 * on pods.
 */
public final class HamiScheduler implements AutoCloseable {

    /** The scheduler name HAMi's chart and webhook use. */
    public static final String SCHEDULER_NAME = "hami-scheduler";
    /** HAMi's chart's defaults: pack nodes, spread over a node's cards. */
    public static final String DEFAULT_NODE_POLICY = "binpack";

    public static final String DEFAULT_GPU_POLICY = "spread";

    /**
     * The API client rate HAMi's scheduler is given. Its default is client-go's, 5 queries/s (burst 10); its node
     * registration alone takes two calls per node per round (the handshake read and written), so on 1,213 nodes a
     * round would take 8 minutes and each bind (node lock, pod annotations, binding) about a second. We give it what
     * kube-scheduler's own client has by default, and twice that as burst, so that the rate limit is not what is
     * measured.
     */
    static final List<String> CLIENT_RATE = List.of("--kube-qps", "50", "--kube-burst", "100");

    /** The {@code nvidia:} part of HAMi's device configuration, as its chart renders it by default. */
    private static final String DEVICE_CONFIG = """
            nvidia:
              resourceCountName: nvidia.com/gpu
              resourceMemoryName: nvidia.com/gpumem
              resourceMemoryPercentageName: nvidia.com/gpumem-percentage
              resourceCoreName: nvidia.com/gpucores
              resourcePriorityName: nvidia.com/priority
              overwriteEnv: false
              defaultMemory: 0
              defaultCores: 0
              defaultGPUNum: 1
            """;

    private final ManagedProcess process;
    private final int port;

    private HamiScheduler(ManagedProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts {@code binary} against {@code cp} with the given policies ({@code binpack} or {@code spread} each); its
     * log goes to {@code logs/hami-scheduler.log} under the control plane's work directory.
     */
    public static HamiScheduler start(Path binary, ControlPlane cp, String nodePolicy, String gpuPolicy) {
        try {
            Path deviceConfig = Files.writeString(cp.workDir().resolve("hami-device-config.yaml"), DEVICE_CONFIG);
            int port = Ports.free();
            ManagedProcess process = ManagedProcess.start(
                    "hami-scheduler",
                    List.of(
                            "env",
                            "KUBECONFIG=" + cp.kubeconfig(),
                            binary.toString(),
                            "--http_bind",
                            "127.0.0.1:" + port,
                            "--metrics-bind-address",
                            "127.0.0.1:" + Ports.free(),
                            "--scheduler-name",
                            SCHEDULER_NAME,
                            "--node-scheduler-policy",
                            nodePolicy,
                            "--gpu-scheduler-policy",
                            gpuPolicy,
                            "--device-config-file",
                            deviceConfig.toString(),
                            CLIENT_RATE.get(0),
                            CLIENT_RATE.get(1),
                            CLIENT_RATE.get(2),
                            CLIENT_RATE.get(3)),
                    cp.workDir().resolve("logs").resolve("hami-scheduler.log"));
            return new HamiScheduler(process, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * HAMi's scheduler binary, built when missing (minutes, once); fails saying what is missing: Go (exit 3) or the
     * peer source (exit 4).
     */
    public static Path build(Path repository) {
        return build(repository, Map.of());
    }

    /** The same, with {@code env} added to the build's environment ({@code HAMI_SRC}, {@code EGPU_E2E_CACHE}, ...). */
    static Path build(Path repository, Map<String, String> env) {
        try {
            ProcessBuilder builder = new ProcessBuilder(
                            repository.resolve("bench/bin/build-hami").toString(), "--print-path")
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            builder.environment().putAll(env);
            Process build = builder.start();
            String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!build.waitFor(20, TimeUnit.MINUTES)) {
                build.destroyForcibly();
                throw new IllegalStateException("bench/bin/build-hami did not finish within 20 minutes");
            }
            return switch (build.exitValue()) {
                case 0 -> Path.of(out);
                case 3 ->
                    throw new IllegalStateException("HAMi's scheduler cannot be built: Go is missing (install Go, with"
                            + " the module proxy reachable, and run again)");
                case 4 ->
                    throw new IllegalStateException("HAMi's scheduler cannot be built: its source is missing (put"
                            + " hami-v2.10.0-src.tar.gz in ../shared/peers or set HAMI_SRC to it)");
                default ->
                    throw new IllegalStateException("bench/bin/build-hami failed with exit status " + build.exitValue()
                            + "; its output above says why");
            };
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run bench/bin/build-hami: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** kube-scheduler's configuration calling this extender as HAMi's chart configures it. */
    public String schedulerConfig() {
        return """
                apiVersion: kubescheduler.config.k8s.io/v1
                kind: KubeSchedulerConfiguration
                leaderElection:
                  leaderElect: false
                profiles:
                - schedulerName: %s
                extenders:
                - urlPrefix: "http://127.0.0.1:%d"
                  filterVerb: filter
                  bindVerb: bind
                  nodeCacheCapable: true
                  weight: 1
                  httpTimeout: 30s
                  enableHTTPS: false
                  managedResources:
                  - {name: nvidia.com/gpu, ignoredByScheduler: true}
                  - {name: nvidia.com/gpumem, ignoredByScheduler: true}
                  - {name: nvidia.com/gpucores, ignoredByScheduler: true}
                  - {name: nvidia.com/gpumem-percentage, ignoredByScheduler: true}
                """.formatted(SCHEDULER_NAME, port);
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.stop(Duration.ofSeconds(5));
    }
}
