package io.elasticgpu.bench;

import java.nio.file.Path;
import java.util.Arrays;

/** {@code bench/run speed [POD_LIST.csv]} or {@code bench/run reproduce [TRACE_DIR] [RESULTS.csv]}. */
public final class Bench {

    private static final Path SHARED = Path.of(System.getProperty("egpu.shared", "../shared"));

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
            default -> {
                System.err.println("usage: bench/run speed [POD_LIST.csv] | reproduce [TRACE_DIR] [RESULTS.csv]");
                System.exit(2);
            }
        }
    }
}
