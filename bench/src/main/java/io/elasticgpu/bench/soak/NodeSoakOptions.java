package io.elasticgpu.bench.soak;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code bench/run node-soak} was asked, validated with messages that say what to change.
 *
 * @param pods       pods admitted on the node in all (each runs until the soak removes it to make room or at random)
 * @param seed       seeds the pods' shapes, the order of removals and the faults
 * @param faultEvery steps between two faults; the four kinds take turns in a shuffled order
 * @param trace      the openb pod list the shapes are drawn from
 * @param json       where to write the summary as JSON, or null
 */
public record NodeSoakOptions(int pods, long seed, int faultEvery, Path trace, Path json) {

    public static final String USAGE = """
            usage: bench/run node-soak [--pods N] [--seed S] [--fault-every STEPS] [--trace POD_LIST.csv] [--json FILE]""";

    /** @throws IllegalArgumentException naming the argument to change */
    public static NodeSoakOptions parse(List<String> args, Path shared) {
        int pods = 1000;
        long seed = 1;
        int faultEvery = 25;
        Path trace = shared.resolve("traces/openb/openb_pod_list_default.csv");
        Path json = null;
        for (SoakOptions.Flag f : SoakOptions.flags(args)) {
            String flag = f.name();
            String value = f.value();
            switch (flag) {
                case "--pods" -> pods = (int) SoakOptions.number(flag, value, 10, 1_000_000);
                case "--seed" -> seed = (long) SoakOptions.number(flag, value, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--fault-every" -> faultEvery = (int) SoakOptions.number(flag, value, 4, 100_000);
                case "--trace" -> trace = Path.of(value);
                case "--json" -> json = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag
                        + "; known: --pods, --seed, --fault-every, --trace, --json");
            }
        }
        SoakOptions.requireTrace(trace);
        return new NodeSoakOptions(pods, seed, faultEvery, trace, json);
    }
}
