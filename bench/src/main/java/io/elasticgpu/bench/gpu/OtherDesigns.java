package io.elasticgpu.bench.gpu;

import static io.elasticgpu.bench.gpu.GpuIsolationCheck.A;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.B;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.MATMUL_SECONDS;
import static io.elasticgpu.bench.gpu.GpuIsolationCheck.PROBE;

import io.elasticgpu.bench.gpu.GpuIsolationCheck.Pod;
import io.elasticgpu.node.isolation.MpsControl;
import io.elasticgpu.node.isolation.MpsDirs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The designs the agent's (one MPS daemon per share, limits set on the daemon's side) is measured against, with pod A's
 * and pod B's processes multiplying at once: one MPS daemon for the whole card, started as NVIDIA documents it, each
 * client's limits in its own environment (which the client could raise); and no MPS at all.
 */
final class OtherDesigns {

    private final Probes probes;
    private final Path control;
    private final MpsDirs shared;

    /**
     * @param control {@code nvidia-cuda-mps-control}
     * @param dir     where the shared daemon keeps its pipe and logs
     */
    OtherDesigns(Probes probes, Path control, Path dir) {
        this.probes = probes;
        this.control = control;
        this.shared = new MpsDirs(dir);
    }

    /** Each pod's matmul rate and the total under one shared daemon, each client's limits in its environment. */
    Map<String, Object> sharedDaemon() throws IOException, InterruptedException {
        Files.createDirectories(shared.pipe());
        Files.createDirectories(shared.log());
        ProcessBuilder pb = new ProcessBuilder(control.toString(), "-d");
        pb.environment().put("CUDA_MPS_PIPE_DIRECTORY", shared.pipe().toString());
        pb.environment().put("CUDA_MPS_LOG_DIRECTORY", shared.log().toString());
        if (!pb.start().waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the shared MPS daemon did not start within 30 s");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (MpsControl.pid(shared.pipe()) <= 0 && System.nanoTime() < deadline) {
            Thread.sleep(50); // -d returns before the daemon has written its pid file and opened its pipe
        }
        long daemon = MpsControl.pid(shared.pipe());
        try {
            return together(
                    shared,
                    Map.of(
                            A.name(),
                                    Map.of(
                                            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                                            "30",
                                            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                                            "0=20480M"),
                            B.name(),
                                    Map.of(
                                            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                                            "60",
                                            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                                            "0=40960M")));
        } finally {
            ProcessBuilder quit = new ProcessBuilder(control.toString());
            quit.environment().put("CUDA_MPS_PIPE_DIRECTORY", shared.pipe().toString());
            Process q = quit.start();
            q.getOutputStream().write("quit\n".getBytes(StandardCharsets.US_ASCII));
            q.getOutputStream().close();
            q.waitFor(30, TimeUnit.SECONDS);
            ProcessHandle.of(daemon).filter(ProcessHandle::isAlive).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Each pod's matmul rate and the total with no MPS at all. */
    Map<String, Object> noMps() {
        return together(null, null);
    }

    /** One process per pod at once, under the daemon of {@code dirs} (null: none) with each client's environment. */
    private Map<String, Object> together(MpsDirs dirs, Map<String, Map<String, String>> clientEnv) {
        List<Probe> running = new ArrayList<>();
        Path go = probes.startFile();
        try {
            for (Pod p : List.of(A, B)) {
                Map<String, String> env = Probes.env(dirs, false);
                if (clientEnv != null) {
                    env.putAll(clientEnv.get(p.name()));
                }
                env.put("START_FILE", go.toString());
                running.add(
                        probes.start(p.name() + "-plain", null, env, "matmul", Double.toString(MATMUL_SECONDS), "0"));
            }
            Probes.startTogether(running, go);
            Map<String, Object> r = new LinkedHashMap<>();
            double total = 0;
            for (int i = 0; i < running.size(); i++) {
                double t = running.get(i).await("matmul", PROBE).path("tflops").asDouble();
                r.put(List.of(A, B).get(i).name(), t);
                total += t;
            }
            r.put("total", GpuIsolationCheck.round(total, 1));
            return r;
        } finally {
            running.forEach(Probe::close);
        }
    }
}
