package io.elasticgpu.bench;

import io.elasticgpu.bench.soak.NodeSoak;
import io.elasticgpu.bench.soak.NodeSoakOptions;
import io.elasticgpu.bench.soak.SoakResult;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code node-soak}: the options, the soak, the summary and the JSON; exit 1 on any violation, 2 for bad input. */
@Command(
        name = "node-soak",
        mixinStandardHelpOptions = true,
        header = "Pods through kubelet's device manager and the agent, with crashes.",
        sortOptions = false,
        description = "Pods of the openb trace's shapes admitted one by one on an 8-card node by kubelet's own device"
                + " manager (the Go kubelet driver) and the agent as a process, with kubelet restarts, agent SIGKILLs,"
                + " plugin sockets deleted and Xid storms, audited after every step and every fault. Needs the upstream"
                + " programs, the kubelet driver (Go) and the egpu jar; bench/run builds them.")
public final class NodeSoakCommand implements Callable<Integer> {

    @Option(
            names = "--pods",
            paramLabel = "N",
            defaultValue = "1000",
            description = "Pods admitted in all, 10..1000000 (default: ${DEFAULT-VALUE}).")
    int pods;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seeds the pods' shapes, the order of removals and the faults (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--fault-every",
            paramLabel = "STEPS",
            defaultValue = "25",
            description = "Steps between two faults, 4..100000 (default: ${DEFAULT-VALUE}).")
    int faultEvery;

    @Option(
            names = "--trace",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            description = "The openb pod list the shapes are drawn from (default: ${DEFAULT-VALUE}).")
    Path trace;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the summary as JSON.")
    Path json;

    /**
     * What was asked, checked.
     *
     * @throws IllegalArgumentException naming the option to change
     */
    public NodeSoakOptions options() {
        Lab.within("--pods", pods, 10, 1_000_000);
        Lab.within("--fault-every", faultEvery, 4, 100_000);
        Lab.trace("--trace", trace);
        return new NodeSoakOptions(pods, seed, faultEvery, trace, json);
    }

    @Override
    public Integer call() throws Exception {
        NodeSoakOptions options = options();
        Path work = SoakCommand.workDir(Path.of("").toAbsolutePath(), "node-soak");
        SoakResult result = NodeSoak.run(options, work, System.err);
        System.err.println("node-soak: logs in " + work.resolve("control-plane/logs"));
        return SoakCommand.report("node-soak", result, options.json());
    }
}
