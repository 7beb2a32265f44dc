package io.elasticgpu.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code reproduce}: the FGD paper's experiment on every trace, against its published results ({@link Reproduction}).
 * */
@Command(
        name = "reproduce",
        mixinStandardHelpOptions = true,
        header = "The FGD paper's experiment on every trace, as a Markdown table.",
        description = "The paper's experiment on every trace the artifact published (six policies and elastic, seeds"
                + " 42..51, 130 %% inflation), as a Markdown table against the published means. Exit 1 when a paper"
                + " policy lands more than 0.3 points from its published mean.")
final class ReproduceCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "TRACE_DIR",
            defaultValue = Lab.SHARED + "/traces/openb",
            description = "The folder of openb pod lists (default: ${DEFAULT-VALUE}).")
    Path traceDir;

    @Parameters(
            index = "1",
            arity = "0..1",
            paramLabel = "RESULTS.csv",
            defaultValue = Lab.SHARED + "/placement/fgd-artifact-at-arrival100.csv",
            description = "The FGD artifact's published results (default: ${DEFAULT-VALUE}).")
    Path results;

    @Override
    public Integer call() throws Exception {
        if (!Files.isDirectory(traceDir)) {
            throw new IllegalArgumentException(
                    "TRACE_DIR: no such folder " + traceDir + " (the default is ../shared's)");
        }
        return Reproduction.run(traceDir, Lab.existing("RESULTS.csv", results));
    }
}
