package io.elasticgpu.bench;

import io.elasticgpu.simulator.trace.OpenbTrace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code trace-variant}: an openb pod list with a share of its GPU pods naming GPU models ({@link TraceVariant}). */
@Command(
        name = "trace-variant",
        mixinStandardHelpOptions = true,
        header = "An openb pod list in which a share of the GPU pods name GPU models.",
        description = "Writes a copy of an openb pod list in which a share of the GPU pods, drawn with the seed, name"
                + " the GPU models they accept (column gpu_spec), as the FGD artifact's gpuspec traces are made from"
                + " the default trace. Mixes: production (slices name T4 or P100; one-card pods T4, G2, a V100, an"
                + " older card, G3 or a broad set; multi-card pods G2, G3 or a V100), capacity (one model in"
                + " proportion to its cards), named:MODELS (every chosen pod names MODELS, e.g. named:G3|V100M32)."
                + " A pod names only models with a node that can hold it.")
final class TraceVariantCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--from",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            description = "The pod list to start from (default: ${DEFAULT-VALUE}).")
    Path from;

    @Option(
            names = "--nodes",
            paramLabel = "NODE_LIST.csv",
            description = "The node list (default: " + OpenbTrace.GPU_NODE_LIST + " beside the pod list).")
    Path nodes;

    @Option(
            names = "--gpu-spec-share",
            paramLabel = "SHARE",
            required = true,
            description = "The share of GPU pods that name models, 0..1 (e.g. 0.33).")
    double share;

    @Option(
            names = "--mix",
            paramLabel = "MIX",
            defaultValue = "production",
            description = "What the pods name: production, capacity or named:MODELS (default: ${DEFAULT-VALUE}).")
    String mix;

    @Option(names = "--seed", defaultValue = "42", description = "Which pods, and what they name (default: 42).")
    long seed;

    @Option(names = "--out", paramLabel = "FILE", required = true, description = "Where to write the pod list.")
    Path out;

    @Override
    public Integer call() {
        Lab.within("--gpu-spec-share", share, 0, 1);
        TraceVariant.Mix chosen;
        String named = "";
        if (mix.startsWith("named:") && mix.length() > "named:".length()) {
            chosen = TraceVariant.Mix.NAMED;
            named = mix.substring("named:".length());
        } else if (mix.equals("production") || mix.equals("capacity")) {
            chosen = TraceVariant.Mix.valueOf(mix.toUpperCase(Locale.ROOT));
        } else {
            throw new IllegalArgumentException(
                    "--mix must be production, capacity or named:MODELS, was \"%s\"".formatted(mix));
        }
        Path podList = Lab.trace("--from", from);
        Path nodeList = nodes != null
                ? Lab.existing("--nodes", nodes)
                : Lab.existing("--nodes", podList.toAbsolutePath().getParent().resolve(OpenbTrace.GPU_NODE_LIST));
        try {
            TraceVariant.Result result = TraceVariant.of(
                    Files.readAllLines(podList), OpenbTrace.readNodes(nodeList), share, chosen, named, seed);
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.write(out, result.lines());
            spec.commandLine()
                    .getOut()
                    .printf(
                            "%s: %d of %d GPU pods name models (%d before), mix %s, seed %d%n",
                            out, result.named(), result.gpuPods(), result.namedBefore(), mix, seed);
            spec.commandLine().getOut().flush();
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }
}
