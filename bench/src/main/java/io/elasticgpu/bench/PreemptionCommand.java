package io.elasticgpu.bench;

import io.elasticgpu.simulator.preemption.PreemptionCost;
import io.elasticgpu.simulator.replay.Experiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code preemption}: pods evicted per high-priority pod placed, kube-scheduler's victims against ours. */
@Command(
        name = "preemption",
        mixinStandardHelpOptions = true,
        header = "Pods evicted per pod placed by preemption, by node totals and by card.",
        description = "Replays an openb pod list with priorities from its qos column (LS and Guaranteed 3, Burstable"
                + " 2, BE 1): a pod that fits nowhere preempts, once with kube-scheduler's victims chosen by a node's"
                + " totals and once with the extender's preempt verb, which frees one card. Seeds 42 onwards, 130 %%"
                + " inflation. Prints the figures as JSON.")
final class PreemptionCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            description = "The openb pod list, with a qos column (default: ${DEFAULT-VALUE}).")
    Path podList;

    @Option(names = "--policy", paramLabel = "NAME", defaultValue = "elastic", description = "Where pods go.")
    String policy;

    @Option(names = "--seeds", paramLabel = "N", defaultValue = "10", description = "Seeds 42 .. 42+N-1, 1..100.")
    int seeds;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures to this file.")
    Path json;

    @Override
    public Integer call() throws Exception {
        int count = Lab.within("--seeds", seeds, 1, 100);
        String out = PreemptionCost.run(Lab.trace("POD_LIST.csv", podList), policy, count, Experiment.PAPER_INFLATION);
        System.out.print(out);
        if (json != null) {
            Files.writeString(json, out);
        }
        return 0;
    }
}
