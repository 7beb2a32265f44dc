package io.elasticgpu.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * What a replay plays, shared by {@code cluster-replay} and {@code arena}: the trace, its nodes, the pods' order,
 * where they stop arriving, how many nodes and how the pods are created. Checked by the verb that mixes it in.
 */
public final class ReplayInput {

    @Option(
            names = "--trace",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            order = 1,
            description = "An openb pod list (default: ${DEFAULT-VALUE}).")
    Path trace;

    @Option(
            names = "--nodes",
            paramLabel = "NODE_LIST.csv",
            order = 2,
            description = "The openb node list (default: openb_node_list_gpu_node.csv beside the pod list).")
    Path nodes;

    @Option(
            names = "--events",
            paramLabel = "EVENTS.csv",
            order = 3,
            description = "A recorded run whose pod order and node priority to replay, instead of --seed's.")
    Path events;

    @Option(
            names = "--seed",
            paramLabel = "N",
            defaultValue = "42",
            order = 4,
            description = "Our shuffle's seed, the simulator's (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--cut",
            paramLabel = "PCT",
            defaultValue = "100",
            order = 5,
            description = "Pods arrive until they have asked this percentage of the cluster's GPU capacity, 1..130"
                    + " (default: ${DEFAULT-VALUE}).")
    double cut;

    @Option(
            names = "--max-nodes",
            paramLabel = "N",
            defaultValue = "0",
            order = 6,
            description = "Replay on this many of the trace's nodes, evenly spread over it; 0 for all (default:"
                    + " ${DEFAULT-VALUE}).")
    int maxNodes;

    @Option(
            names = "--clients",
            paramLabel = "N",
            defaultValue = "4",
            order = 7,
            description = "Concurrent pod creators, 1..64 (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(
            names = "--no-gates",
            order = 8,
            description = "Create the pods as they come instead of behind scheduling gates lifted in order.")
    boolean noGates;

    /** Checks the values that picocli's types do not. */
    void check() {
        Lab.trace("--trace", trace);
        Lab.existing("--nodes", nodes);
        Lab.existing("--events", events);
        Lab.within("--cut", cut, 1, 130);
        Lab.within("--max-nodes", maxNodes, 0, 100_000);
        Lab.within("--clients", clients, 1, 64);
    }
}
