package io.elasticgpu.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dra-prepare}: the DRA driver's prepare and unprepare latency per claim ({@link DraPrepareBenchmark}). */
@Command(
        name = "dra-prepare",
        mixinStandardHelpOptions = true,
        header = "The DRA driver's prepare/unprepare latency per claim, 60 held.",
        description = "The DRA driver's NodePrepareResources and NodeUnprepareResources latency per claim, 60 held.")
final class DraPrepareCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "CLAIMS",
            defaultValue = "2000",
            description = "Claims prepared and unprepared, 10 or more (default: ${DEFAULT-VALUE}).")
    int claims;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON.")
    Path json;

    @Override
    public Integer call() throws Exception {
        DraPrepareBenchmark.run(Lab.within("CLAIMS", claims, 10, 9_999_999), json);
        return 0;
    }
}
