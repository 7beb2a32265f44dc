package io.elasticgpu.bench;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code node-agent}: the agent's {@code Allocate} latency, start-up time and memory ({@link NodeAgentBenchmark}).
 * Not {@code NodeAgentCommand}: that is {@code egpu node-agent}'s.
 */
@Command(
        name = "node-agent",
        mixinStandardHelpOptions = true,
        header = "Allocate latency with 100 pods pending; the agent's start-up and memory.",
        description = "The node agent's Allocate latency over its unix socket with 100 pods pending and 60 running,"
                + " beside an echo plugin's sent the same calls, and the agent process's start-up time and memory,"
                + " with 8 simulated A100 80 GB cards.")
final class NodeAgentBenchmarkCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "ALLOCATIONS",
            defaultValue = "2000",
            description = "Allocate calls measured (default: ${DEFAULT-VALUE}).")
    int allocations;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON.")
    Path json;

    @Override
    public Integer call() throws Exception {
        NodeAgentBenchmark.run(Lab.within("ALLOCATIONS", allocations, 1, 10_000_000), json);
        return 0;
    }
}
