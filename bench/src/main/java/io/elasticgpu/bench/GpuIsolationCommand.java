package io.elasticgpu.bench;

import io.elasticgpu.bench.gpu.GpuIsolationCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpu-isolation}: the node agent's MPS isolation and usage readings on a real GPU ({@link GpuIsolationCheck});
 * prints one JSON object. Exit 3 where there is no NVML.
 */
@Command(
        name = "gpu-isolation",
        mixinStandardHelpOptions = true,
        header = "The agent's MPS isolation and usage readings on a real GPU.",
        sortOptions = false,
        description = "On a GPU host: the node agent's own isolation and usage code with real NVML and MPS daemons, and"
                + " CUDA processes (bench/gpu/probe.py) standing for two pods sharing card 0; prints one JSON object."
                + " Without a JDK there: bench/gpu/bundle, then bench/gpu/run-on-gpu.")
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
            description = "Where the check's MPS daemons keep pipes, logs and /dev/shm (default: ${DEFAULT-VALUE}).")
    Path root;

    @Override
    public Integer call() throws Exception {
        String text = GpuIsolationCheck.run(python, probe, control, root);
        System.out.println(text);
        if (json != null) {
            Files.writeString(json, text + "\n");
        }
        return 0;
    }
}
