package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyName;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code extender}: the extender's latency and throughput over HTTP ({@link ExtenderBenchmark}). */
@Command(
        name = "extender",
        mixinStandardHelpOptions = true,
        header = "Extender filter/prioritize latency and throughput over HTTP; binds/s.",
        description =
                "The extender's filter and prioritize latency and throughput over HTTP on loopback, one row per fleet"
                        + " size, and binds per second.")
final class ExtenderCommand implements Callable<Integer> {

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "NODES,NODES",
            defaultValue = "1000,5000",
            description = "Fleet sizes, one row each (default: ${DEFAULT-VALUE}).")
    String fleets;

    @Parameters(
            index = "1",
            arity = "0..1",
            paramLabel = "REQUESTS",
            defaultValue = "2000",
            description = "Requests per row (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description =
                    "Also write the figures as JSON (pairsPerSecond, echoPairsPerSecond, helidonEchoPairsPerSecond"
                            + " and jdkDispatcherEchoPairsPerSecond: one caller, 1,000 nodes, node names;"
                            + " cyclesPerSecond and echoCyclesPerSecond: what kube-scheduler sends per pod, the same"
                            + " way).")
    Path json;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            defaultValue = Policies.DEFAULT,
            description =
                    "The extender's placement policy, as its --policy (default: ${DEFAULT-VALUE}, whose rollouts run"
                            + " in the deciding filter); e.g. elastic, for a cheaper scheduling cycle.")
    String policy;

    @Option(
            names = "--node-names-only",
            description = "Leave out the full-node mode (JSON of whole Node objects, minutes per fleet: it measures"
                    + " JSON, not the extender), e.g. for repeated runs of the headline figures.")
    boolean nodeNamesOnly;

    @Override
    public Integer call() throws Exception {
        ExtenderBenchmark.Result r = ExtenderBenchmark.run(
                sizes(), Lab.within("REQUESTS", requests, 1, 10_000_000), !nodeNamesOnly, policy());
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), r);
        }
        return 0;
    }

    private PolicyName policy() {
        try {
            return PolicyName.parse(policy);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--policy: " + e.getMessage(), e);
        }
    }

    private List<Integer> sizes() {
        try {
            List<Integer> sizes = Arrays.stream(fleets.split(","))
                    .map(String::strip)
                    .map(Integer::valueOf)
                    .toList();
            if (sizes.stream().allMatch(n -> n > 0)) {
                return sizes;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("NODES,NODES: fleet sizes must be positive whole numbers separated by"
                + " commas, e.g. 1000,5000; got " + fleets);
    }
}
