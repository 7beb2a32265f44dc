package io.elasticgpu.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code speed}: the wall time of one replay of fgd and elastic against named baselines ({@link SpeedBenchmark}). */
@Command(
        name = "speed",
        mixinStandardHelpOptions = true,
        header = "Seconds per replay of fgd and elastic against named baselines.",
        description =
                "Seconds per replay (seed 42, one thread, median of 5) of fgd and elastic, against fgd itself and fgd"
                        + " rescoring every node for every pod.")
final class SpeedCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            description = "The openb pod list to replay (default: ${DEFAULT-VALUE}).")
    Path podList;

    @Override
    public Integer call() {
        SpeedBenchmark.run(Lab.trace("POD_LIST.csv", podList));
        return 0;
    }
}
