package io.elasticgpu.bench;

import io.elasticgpu.bench.cluster.ClusterReplay;
import io.elasticgpu.bench.cluster.ReplayOptions;
import io.elasticgpu.bench.cluster.ReplayResult;
import io.elasticgpu.simulator.trace.TraceFormatException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** {@code bench/run cluster-replay}: the options, the replay, the table and the JSON; exit 2 for bad input. */
final class ClusterReplayCommand {

    private ClusterReplayCommand() {
    }

    static int run(List<String> args, Path shared) throws Exception {
        ReplayOptions options;
        try {
            options = ReplayOptions.parse(args, shared);
        } catch (IllegalArgumentException e) {
            System.err.println("cluster-replay: " + e.getMessage());
            System.err.println(ReplayOptions.USAGE);
            return 2;
        }
        Path repository = Path.of("").toAbsolutePath();
        Path work = repository.resolve("bench/target/cluster-replay")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        ReplayResult result;
        try {
            result = ClusterReplay.run(options, repository, work, System.err);
        } catch (TraceFormatException | IllegalArgumentException e) {
            System.err.println("cluster-replay: " + e.getMessage());
            return 2;
        }
        System.out.print(result.table());
        System.err.println("cluster-replay: logs in " + work.resolve("logs"));
        if (options.json() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.json().toFile(), result);
        }
        if (result.overCommittedCards() > 0 || result.unaccounted() > 0) {
            System.err.println("cluster-replay: FAILED: cards over capacity or GPU pods without allocation");
            return 1;
        }
        return 0;
    }
}
