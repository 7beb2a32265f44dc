package io.elasticgpu.bench.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code bench/run cluster-replay} was asked, validated with messages that say what to change.
 *
 * @param trace           an openb pod list
 * @param nodes           the openb node list (default: beside the pod list)
 * @param events          a recorded run whose pod order and node priority to replay, or null for {@code seed}
 * @param seed            our shuffle's seed (the simulator's, PROTOCOL.md)
 * @param cutPct          pods arrive until they have asked this percentage of the cluster's GPU capacity
 * @param policy          the extender's and the simulator's policy
 * @param maxNodes        replay on this many of the trace's nodes (evenly spread over it), 0 for all
 * @param schedulerConfig a KubeSchedulerConfiguration to use instead of the chart's ({@code ${EXTENDER_URL}} is
 *                        replaced), or null
 * @param clients         concurrent pod creators
 * @param baseline        also replay the same pods without the extender, for the control plane's own pods/s
 * @param gated           create every pod behind a scheduling gate, then lift the gates in order (the extender
 *                        knows the workload from the start, as the simulator's policy does)
 * @param extenderFlags   flags added to the extender's command line after the chart's, to measure a knob
 * @param warmExtender    before measuring, schedule this many copies of the first pods through the extender and delete
 *                        them, so that what is measured is an extender whose JIT has compiled its code (as one that has
 *                        run for a while is) rather than a fresh JVM; 0 measures the fresh JVM
 * @param dra             the nodes offer their cards through DRA and each GPU pod asks through a ResourceClaim
 *                        ({@code --api dra}); the baseline is then kube-scheduler's own DRA allocator
 * @param json            where to write the result as JSON, or null
 */
public record ReplayOptions(Path trace, Path nodes, Path events, long seed, double cutPct, String policy, int maxNodes,
                            Path schedulerConfig, int clients, boolean baseline, boolean gated, List<String> extenderFlags,
                            int warmExtender, boolean dra, Path json) {

    public static final String USAGE = """
            usage: bench/run cluster-replay [--trace POD_LIST.csv] [--nodes NODE_LIST.csv] [--events EVENTS.csv | --seed N]
                   [--cut PCT] [--policy NAME] [--max-nodes N] [--scheduler-config FILE] [--clients N] [--no-baseline] [--no-gates]
                   [--extender-flag FLAG ...] [--warm-extender PODS] [--api device-plugin|dra]
                   [--json FILE]""";

    /** @throws IllegalArgumentException naming the argument to change */
    public static ReplayOptions parse(List<String> args, Path shared) {
        Path trace = shared.resolve("traces/openb/openb_pod_list_default.csv");
        Path nodes = null;
        Path events = null;
        Path config = null;
        Path json = null;
        long seed = 42;
        double cut = 100;
        String policy = "elastic";
        int maxNodes = 0;
        int clients = 4;
        int warmExtender = 0;
        boolean baseline = true;
        boolean gated = true;
        boolean dra = false;
        List<String> extenderFlags = new ArrayList<>();
        List<String> rest = new ArrayList<>(args);
        while (!rest.isEmpty()) {
            String flag = rest.removeFirst();
            if (flag.equals("--no-baseline") || flag.equals("--no-gates")) {
                baseline &= !flag.equals("--no-baseline");
                gated &= !flag.equals("--no-gates");
                continue;
            }
            if (rest.isEmpty()) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = rest.removeFirst();
            switch (flag) {
                case "--trace" -> trace = existing(flag, value);
                case "--nodes" -> nodes = existing(flag, value);
                case "--events" -> events = existing(flag, value);
                case "--scheduler-config" -> config = existing(flag, value);
                case "--json" -> json = Path.of(value);
                case "--seed" -> seed = (long) number(flag, value, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--cut" -> cut = number(flag, value, 1, 130);
                case "--policy" -> policy = value;
                case "--extender-flag" -> extenderFlags.add(value);
                case "--max-nodes" -> maxNodes = (int) number(flag, value, 0, 100_000);
                case "--clients" -> clients = (int) number(flag, value, 1, 64);
                case "--warm-extender" -> warmExtender = (int) number(flag, value, 0, 100_000);
                case "--api" -> {
                    if (!value.equals("dra") && !value.equals("device-plugin")) {
                        throw new IllegalArgumentException("--api must be device-plugin or dra, was \"" + value + "\"");
                    }
                    dra = value.equals("dra");
                }
                default -> throw new IllegalArgumentException("unknown option " + flag + "; known: " + Arrays.toString(
                        new String[] {"--trace", "--nodes", "--events", "--seed", "--cut", "--policy", "--max-nodes",
                                "--scheduler-config", "--clients", "--no-baseline", "--no-gates", "--extender-flag", "--warm-extender", "--api", "--json"}));
            }
        }
        if (!Files.isRegularFile(trace)) {
            throw new IllegalArgumentException("--trace: no such file " + trace + " (the default is ../shared's openb trace)");
        }
        if (warmExtender > 0 && dra) {
            throw new IllegalArgumentException("--warm-extender works with --api device-plugin only (DRA pods' claims"
                    + " are made once, for the measured pods); leave one of them out");
        }
        return new ReplayOptions(trace, nodes, events, seed, cut, policy, maxNodes, config, clients, baseline, gated, extenderFlags,
                warmExtender, dra, json);
    }

    private static Path existing(String flag, String value) {
        Path p = Path.of(value);
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException(flag + ": no such file " + value);
        }
        return p;
    }

    private static double number(String flag, String value, double min, double max) {
        try {
            double v = Double.parseDouble(value);
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("%s must be a number in %s..%s, was \"%s\"".formatted(flag,
                    (long) min, (long) max, value));
        }
    }
}
