package io.elasticgpu.bench;

import io.elasticgpu.bench.gpu.GpuIsolationCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpu-isolation}: the node agent's MPS isolation and usage readings on a real GPU ({@link GpuIsolationCheck}),
 * each MPS layout side by side; prints one JSON object and writes it to {@code --json} whatever happens. Exit 3 where
 * there is no NVML, 1 when the run could not go on (the JSON's {@code fatal} says why).
 */
@Command(
        name = "gpu-isolation",
        mixinStandardHelpOptions = true,
        header = "The agent's MPS isolation and usage readings on a real GPU.",
        sortOptions = false,
        description = "On a GPU host, as root: the node agent's own isolation and usage code with real NVML and MPS"
                + " daemons in each layout (per-share, per-card, v3), and CUDA processes (bench/gpu/probe.py) in fake"
                + " pods' cgroups standing for two pods sharing card 0; prints one JSON object. Without a JDK there:"
                + " bench/gpu/bundle, then bench/gpu/run-on-gpu.")
final class GpuIsolationCommand implements Callable<Integer> {

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON object to FILE.")
    Path json;

    @Option(
            names = "--mps-control",
            paramLabel = "FILE",
            defaultValue = "/usr/local/nvidia/bin/nvidia-cuda-mps-control",
            description = "The MPS control program (default: ${DEFAULT-VALUE}).")
    Path control;

    @Option(
            names = "--nvidia-smi",
            paramLabel = "FILE",
            defaultValue = "/usr/bin/nvidia-smi",
            description = "nvidia-smi, for the v3 layout's memory limits per cgroup (default: ${DEFAULT-VALUE}).")
    Path nvidiaSmi;

    @Option(
            names = "--python",
            paramLabel = "FILE",
            defaultValue = "python3",
            description = "A python3 with PyTorch (default: ${DEFAULT-VALUE}).")
    Path python;

    @Option(
            names = "--probe",
            paramLabel = "FILE",
            defaultValue = "bench/gpu/probe.py",
            description = "The CUDA probe each process runs (default: ${DEFAULT-VALUE}).")
    Path probe;

    @Option(
            names = "--root",
            paramLabel = "DIR",
            defaultValue = "/run/elastic-gpu/gpu-check",
            description = "Where the check's MPS daemons keep pipes, logs and /dev/shm; emptied before each run"
                    + " (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(
            names = "--cgroup-root",
            paramLabel = "DIR",
            defaultValue = "auto",
            description = "The cgroup v2 hierarchy for the fake pods' cgroups; auto: /sys/fs/cgroup, or a hybrid"
                    + " host's /sys/fs/cgroup/unified (default: ${DEFAULT-VALUE}).")
    String cgroupRoot;

    @Option(
            names = "--layouts",
            paramLabel = "LIST",
            split = ",",
            defaultValue = "per-share,per-card,v3",
            description = "The MPS layouts to measure (default: ${DEFAULT-VALUE}).")
    List<String> layouts;

    @Option(
            names = "--budget-seconds",
            paramLabel = "S",
            defaultValue = "420",
            description = "No step starts after this many seconds (default: ${DEFAULT-VALUE}).")
    int budget;

    @Option(
            names = "--clean",
            description = "Only end and remove what an earlier run left under --root (daemons, probes, mounts, the"
                    + " fake pods' cgroups), then exit.")
    boolean clean;

    @Override
    public Integer call() throws Exception {
        for (String l : layouts) {
            if (!List.of("per-share", "per-card", "v3").contains(l)) {
                throw new IllegalArgumentException("--layouts: per-share, per-card or v3, was " + l);
            }
        }
        if (clean) {
            System.out.println(GpuIsolationCheck.clean(root.toAbsolutePath(), control, cgroupRoot));
            return 0;
        }
        return GpuIsolationCheck.run(
                new GpuIsolationCheck.Options(
                        python,
                        probe.toAbsolutePath(),
                        control,
                        nvidiaSmi,
                        root.toAbsolutePath(),
                        cgroupRoot,
                        layouts,
                        Duration.ofSeconds(budget),
                        json),
                System.out);
    }
}
