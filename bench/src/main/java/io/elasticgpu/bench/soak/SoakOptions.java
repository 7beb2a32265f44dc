package io.elasticgpu.bench.soak;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code bench/run soak} was asked, validated with messages that say what to change.
 *
 * @param duration   how long the load and the faults run (then the drain and the final audit)
 * @param nodes      kwok GPU nodes, in the mix of 8-card (two NVLink islands), 4-card (NVLink pairs) and 2-card nodes
 * @param seed       seeds the pods' shapes, their lifetimes and the faults' order
 * @param faultEvery the time between two faults
 * @param burst      pods created at once by a burst fault
 * @param trace      the openb pod list the shapes are drawn from
 * @param json       where to write the summary as JSON, or null
 */
public record SoakOptions(Duration duration, int nodes, long seed, Duration faultEvery, int burst, Path trace, Path json) {

    public static final String USAGE = """
            usage: bench/run soak [--minutes N] [--nodes N] [--seed S] [--fault-every SECONDS] [--burst PODS]
                   [--trace POD_LIST.csv] [--json FILE]""";

    /** @throws IllegalArgumentException naming the argument to change */
    public static SoakOptions parse(List<String> args, Path shared) {
        double minutes = 10;
        int nodes = 200;
        long seed = 1;
        int faultEvery = 30;
        int burst = 500;
        Path trace = shared.resolve("traces/openb/openb_pod_list_default.csv");
        Path json = null;
        for (Flag f : flags(args)) {
            String flag = f.name();
            String value = f.value();
            switch (flag) {
                case "--minutes" -> minutes = number(flag, value, 0.5, 24 * 60);
                case "--nodes" -> nodes = (int) number(flag, value, 3, 5_000);
                case "--seed" -> seed = (long) number(flag, value, Long.MIN_VALUE, Long.MAX_VALUE);
                case "--fault-every" -> faultEvery = (int) number(flag, value, 5, 3_600);
                case "--burst" -> burst = (int) number(flag, value, 1, 10_000);
                case "--trace" -> trace = Path.of(value);
                case "--json" -> json = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag
                        + "; known: --minutes, --nodes, --seed, --fault-every, --burst, --trace, --json");
            }
        }
        requireTrace(trace);
        return new SoakOptions(Duration.ofSeconds((long) (minutes * 60)), nodes, seed, Duration.ofSeconds(faultEvery),
                burst, trace, json);
    }

    /** One {@code --name value} of the command line. */
    record Flag(String name, String value) {
    }

    /** The arguments as {@code --name value} pairs, in order. */
    static List<Flag> flags(List<String> args) {
        List<Flag> flags = new ArrayList<>();
        for (int i = 0; i < args.size(); i += 2) {
            if (i + 1 == args.size()) {
                throw new IllegalArgumentException(args.get(i) + " needs a value");
            }
            flags.add(new Flag(args.get(i), args.get(i + 1)));
        }
        return flags;
    }

    static void requireTrace(Path trace) {
        if (!Files.isRegularFile(trace)) {
            throw new IllegalArgumentException("--trace: no such file " + trace + " (the default is ../shared's openb trace)");
        }
    }

    static double number(String flag, String value, double min, double max) {
        try {
            double v = Double.parseDouble(value);
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("%s must be a number in %s..%s, was \"%s\"".formatted(flag, min, max, value));
        }
    }
}
