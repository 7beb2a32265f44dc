package io.elasticgpu.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * {@code bench/run speed [POD_LIST.csv]}, {@code bench/run reproduce [TRACE_DIR] [RESULTS.csv]} or
 * {@code bench/run extender [NODES,NODES] [REQUESTS]}, {@code bench/run node-agent [ALLOCATIONS]},
 * {@code bench/run dra-prepare [CLAIMS] [--json FILE]} or
 * {@code bench/run cluster-replay [OPTIONS]} ({@link io.elasticgpu.bench.cluster.ReplayOptions#USAGE}) or
 * {@code bench/run arena [OPTIONS]} ({@link io.elasticgpu.bench.arena.ArenaOptions#USAGE}) or
 * {@code bench/run soak [OPTIONS]} ({@link io.elasticgpu.bench.soak.SoakOptions#USAGE}) or
 * {@code bench/run node-soak [OPTIONS]} ({@link io.elasticgpu.bench.soak.NodeSoakOptions#USAGE}) or
 * {@code bench/run gpu-isolation [OPTIONS]} ({@link io.elasticgpu.bench.gpu.GpuIsolationCheck}, on a GPU host).
 */
public final class Bench {

    private static final Path SHARED = Path.of(System.getProperty("egpu.shared", "../shared"));

    private static final String USAGE = "usage: bench/run speed [POD_LIST.csv] | reproduce [TRACE_DIR] [RESULTS.csv]"
            + " | extender [NODES,NODES (default 1000,5000)] [REQUESTS per row (default 2000)]"
            + " | node-agent [ALLOCATIONS (default 2000)]"
            + " | dra-prepare [CLAIMS (default 2000)] [--json F]"
            + " | cluster-replay [--trace F] [--events F | --seed N] [--cut PCT] [--policy P] [--max-nodes N] [--json F] ..."
            + " | arena [--contenders A,B,...] [--trace F] [--events F | --seed N] [--max-nodes N] [--json F] [--chart F.svg] ..."
            + " | soak [--minutes N] [--nodes N] [--seed S] [--fault-every SECONDS] [--burst PODS] [--json F]"
            + " | node-soak [--pods N] [--seed S] [--fault-every STEPS] [--json F]"
            + " | gpu-isolation [--json F] [--mps-control F] [--python F] [--probe F] [--root DIR] (on a GPU host)";

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        String which = args.length == 0 ? "" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        switch (which) {
            case "speed" -> SpeedBenchmark.run(rest.length > 0 ? Path.of(rest[0])
                    : SHARED.resolve("traces/openb/openb_pod_list_default.csv"));
            case "reproduce" -> System.exit(Reproduction.run(
                    rest.length > 0 ? Path.of(rest[0]) : SHARED.resolve("traces/openb"),
                    rest.length > 1 ? Path.of(rest[1]) : SHARED.resolve("placement/fgd-artifact-at-arrival100.csv")));
            case "extender" -> ExtenderBenchmark.run(rest.length > 0 ? sizes(rest[0]) : List.of(1000, 5000),
                    rest.length > 1 ? Integer.parseInt(rest[1]) : 2000);
            case "node-agent" -> NodeAgentBenchmark.run(rest.length > 0 ? Integer.parseInt(rest[0]) : 2000);
            case "dra-prepare" -> draPrepare(List.of(rest));
            case "cluster-replay" -> System.exit(ClusterReplayCommand.run(List.of(rest), SHARED));
            case "arena" -> System.exit(ArenaCommand.run(List.of(rest), SHARED));
            case "soak" -> System.exit(SoakCommand.run(List.of(rest), SHARED));
            case "node-soak" -> System.exit(SoakCommand.runNode(List.of(rest), SHARED));
            case "gpu-isolation" -> System.exit(io.elasticgpu.bench.gpu.GpuIsolationCheck.run(List.of(rest)));
            default -> {
                System.err.println(USAGE);
                System.exit(2);
            }
        }
    }

    /** {@code [CLAIMS] [--json FILE]}. */
    private static void draPrepare(List<String> args) throws Exception {
        int claims = 2000;
        Path json = null;
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--json") && i + 1 < args.size()) {
                json = Path.of(args.get(++i));
            } else if (args.get(i).matches("[1-9][0-9]{1,6}")) {
                claims = Integer.parseInt(args.get(i));
            } else {
                System.err.println("dra-prepare: expected a number of claims (10 or more) or --json FILE, got " + args.get(i));
                System.err.println(USAGE);
                System.exit(2);
            }
        }
        DraPrepareBenchmark.run(claims, json);
    }

    private static List<Integer> sizes(String csv) {
        try {
            List<Integer> sizes = Arrays.stream(csv.split(",")).map(String::trim).map(Integer::valueOf).toList();
            if (sizes.stream().anyMatch(n -> n < 1)) {
                throw new NumberFormatException();
            }
            return sizes;
        } catch (NumberFormatException e) {
            System.err.println("fleet sizes must be positive whole numbers separated by commas, e.g. 1000,5000; got " + csv);
            System.err.println(USAGE);
            System.exit(2);
            return List.of();
        }
    }
}
