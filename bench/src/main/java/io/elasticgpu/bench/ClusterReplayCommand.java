package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.bench.cluster.ClusterReplay;
import io.elasticgpu.bench.cluster.ReplayOptions;
import io.elasticgpu.bench.cluster.ReplayResult;
import io.elasticgpu.core.policy.Policies;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cluster-replay}: the options, the replay, the table and the JSON; exit 1 when a card is over capacity or a
 * GPU pod has no allocation, 2 for bad input.
 */
@Command(
        name = "cluster-replay",
        mixinStandardHelpOptions = true,
        header = "An openb trace through the real kube-scheduler and the extender.",
        sortOptions = false,
        description =
                "An openb trace through the real kube-scheduler and the extender as the Helm chart runs them, on one"
                        + " kwok node per trace node, audited from the API and compared with the simulator on the "
                        + "same order."
                        + " Needs the upstream programs (e2e/bin/build-binaries) and the egpu jar; bench/run builds "
                        + "both.")
public final class ClusterReplayCommand implements Callable<Integer> {

    @Mixin
    ReplayInput input;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            defaultValue = Policies.DEFAULT,
            order = 10,
            description = "The extender's and the simulator's policy (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(
            names = "--scheduler-config",
            paramLabel = "FILE",
            order = 11,
            description = "A KubeSchedulerConfiguration to use instead of the chart's ($${EXTENDER_URL} is replaced).")
    Path schedulerConfig;

    @Option(
            names = "--no-baseline",
            order = 12,
            description = "Do not replay the same pods without the extender (the control plane's own pods/s).")
    boolean noBaseline;

    @Option(
            names = "--extender-flag",
            paramLabel = "FLAG",
            order = 13,
            description =
                    "A flag added to the extender's command line after the chart's, to measure a knob; repeatable.")
    List<String> extenderFlags = new ArrayList<>();

    @Option(
            names = "--extender-jvm",
            paramLabel = "OPTION",
            order = 13,
            description = "A JVM option added to the extender's after the chart's (e.g. -XX:AOTCache=FILE, or"
                    + " -XX:AOTCacheOutput=FILE to train one), to measure it; repeatable.")
    List<String> extenderJvm = new ArrayList<>();

    @Option(
            names = "--warm-extender",
            paramLabel = "PODS",
            defaultValue = "0",
            order = 14,
            description = "Before measuring, schedule this many copies of the first pods through the extender and"
                    + " delete them, so that a warmed-up JIT is measured; 0 measures the fresh JVM (default:"
                    + " ${DEFAULT-VALUE}).")
    int warmExtender;

    @Option(
            names = "--api",
            paramLabel = "device-plugin|dra",
            defaultValue = "device-plugin",
            order = 15,
            description = "How the nodes offer their cards: resource names, or DRA with a ResourceClaim per GPU pod"
                    + " (default: ${DEFAULT-VALUE}).")
    String api;

    @Option(names = "--json", paramLabel = "FILE", order = 16, description = "Also write the result as JSON.")
    Path json;

    /**
     * What was asked, checked.
     *
     * @throws IllegalArgumentException naming the option to change
     */
    public ReplayOptions options() {
        input.check();
        Lab.existing("--scheduler-config", schedulerConfig);
        Lab.within("--warm-extender", warmExtender, 0, 100_000);
        if (!api.equals("dra") && !api.equals("device-plugin")) {
            throw new IllegalArgumentException("--api must be device-plugin or dra, was \"" + api + "\"");
        }
        boolean dra = api.equals("dra");
        if (warmExtender > 0 && dra) {
            throw new IllegalArgumentException("--warm-extender works with --api device-plugin only (DRA pods' claims"
                    + " are made once, for the measured pods); leave one of them out");
        }
        return new ReplayOptions(
                input.trace,
                input.nodes,
                input.events,
                input.seed,
                input.cut,
                policy,
                input.maxNodes,
                schedulerConfig,
                input.clients,
                !noBaseline,
                !input.noGates,
                List.copyOf(extenderFlags),
                List.copyOf(extenderJvm),
                warmExtender,
                dra,
                json);
    }

    @Override
    public Integer call() throws Exception {
        ReplayOptions options = options();
        Path repository = Path.of("").toAbsolutePath();
        Path work = repository
                .resolve("bench/target/cluster-replay")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        ReplayResult result = ClusterReplay.run(options, repository, work, System.err);
        System.out.print(result.table());
        System.err.println("cluster-replay: logs in " + work.resolve("logs"));
        if (options.json() != null) {
            new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValue(options.json().toFile(), result);
        }
        if (result.overCommittedCards() > 0 || result.unaccounted() > 0) {
            System.err.println("cluster-replay: FAILED: cards over capacity or GPU pods without allocation");
            return 1;
        }
        return 0;
    }
}
