package io.elasticgpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.elasticgpu.bench.soak.Soak;
import io.elasticgpu.bench.soak.SoakOptions;
import io.elasticgpu.bench.soak.SoakResult;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code soak}: the options, the soak, the summary and the JSON; exit 1 on any violation, 2 for bad input. */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        header = "Churn with components killed on the real control plane, audited.",
        sortOptions = false,
        description =
                "Churn on the real control plane: pods of the openb trace's shapes coming and going on kwok GPU nodes"
                        + " while components are killed, audited from the API throughout and after a final drain. "
                        + "Needs the"
                        + " upstream programs (e2e/bin/build-binaries) and the egpu jar; bench/run builds both.")
public final class SoakCommand implements Callable<Integer> {

    @Option(
            names = "--minutes",
            paramLabel = "N",
            defaultValue = "10",
            description = "How long the load and the faults run at least (on until every kind of fault has happened"
                    + " once), 0.5..1440 (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "200",
            description = "kwok GPU nodes (8-, 4- and 2-card), 3..5000 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seeds the pods' shapes, their lifetimes and the faults' order (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--fault-every",
            paramLabel = "SECONDS",
            defaultValue = "30",
            description = "The time between two faults, 5..3600 (default: ${DEFAULT-VALUE}).")
    int faultEvery;

    @Option(
            names = "--burst",
            paramLabel = "PODS",
            defaultValue = "500",
            description = "Pods created at once by a burst fault, 1..10000 (default: ${DEFAULT-VALUE}).")
    int burst;

    @Option(
            names = "--trace",
            paramLabel = "POD_LIST.csv",
            defaultValue = Lab.DEFAULT_TRACE,
            description = "The openb pod list the shapes are drawn from (default: ${DEFAULT-VALUE}).")
    Path trace;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the summary as JSON.")
    Path json;

    @Option(
            names = "--restarts-until",
            paramLabel = "MINUTES",
            description = "After this minute, leave out the faults that restart our JVMs (extender and controller"
                    + " leader killed, upgrade and rollback), so that each lives to the end and its heap's slope is"
                    + " its own; 0.5..1440, at most --minutes (default: all the run).")
    Double restartsUntil;

    /**
     * What was asked, checked.
     *
     * @throws IllegalArgumentException naming the option to change
     */
    public SoakOptions options() {
        Lab.within("--minutes", minutes, 0.5, 24 * 60);
        Lab.within("--nodes", nodes, 3, 5_000);
        Lab.within("--fault-every", faultEvery, 5, 3_600);
        Lab.within("--burst", burst, 1, 10_000);
        Lab.trace("--trace", trace);
        if (restartsUntil != null) {
            Lab.within("--restarts-until", restartsUntil, 0.5, minutes);
        }
        return new SoakOptions(
                Duration.ofSeconds((long) (minutes * 60)),
                nodes,
                seed,
                Duration.ofSeconds(faultEvery),
                burst,
                trace,
                json,
                restartsUntil == null ? null : Duration.ofSeconds((long) (restartsUntil * 60)));
    }

    @Override
    public Integer call() throws Exception {
        SoakOptions options = options();
        Path repository = Path.of("").toAbsolutePath();
        Path work = workDir(repository, "soak");
        SoakResult result = Soak.run(options, repository, work, System.err);
        System.err.println("soak: logs in " + work.resolve("logs"));
        return report("soak", result, options.json());
    }

    /** {@code bench/target/<verb>/<date-time>} of the repository. */
    static Path workDir(Path repository, String verb) {
        return repository
                .resolve("bench/target")
                .resolve(verb)
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }

    /** Prints the summary, writes the JSON; 1 when an invariant broke. */
    static int report(String verb, SoakResult result, Path json) throws IOException {
        System.out.print(result.table());
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), result);
        }
        if (result.totalViolations() > 0) {
            System.err.println(verb + ": FAILED: " + result.violations());
            return 1;
        }
        return 0;
    }
}
