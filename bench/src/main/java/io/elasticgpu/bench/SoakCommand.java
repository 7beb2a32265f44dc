package io.elasticgpu.bench;

import io.elasticgpu.bench.soak.NodeSoak;
import io.elasticgpu.bench.soak.NodeSoakOptions;
import io.elasticgpu.bench.soak.Soak;
import io.elasticgpu.bench.soak.SoakOptions;
import io.elasticgpu.bench.soak.SoakResult;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * {@code bench/run soak} and {@code bench/run node-soak}: the options, the soak, the summary and the JSON; exit 1 on
 * any violation, 2 for bad input.
 */
final class SoakCommand {

    private SoakCommand() {
    }

    static int run(List<String> args, Path shared) throws Exception {
        SoakOptions options;
        try {
            options = SoakOptions.parse(args, shared);
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println(SoakOptions.USAGE);
            return 2;
        }
        Path repository = Path.of("").toAbsolutePath();
        Path work = workDir(repository, "soak");
        SoakResult result = Soak.run(options, repository, work, System.err);
        System.err.println("soak: logs in " + work.resolve("logs"));
        return report("soak", result, options.json());
    }

    static int runNode(List<String> args, Path shared) throws Exception {
        NodeSoakOptions options;
        try {
            options = NodeSoakOptions.parse(args, shared);
        } catch (IllegalArgumentException e) {
            System.err.println("node-soak: " + e.getMessage());
            System.err.println(NodeSoakOptions.USAGE);
            return 2;
        }
        Path work = workDir(Path.of("").toAbsolutePath(), "node-soak");
        SoakResult result = NodeSoak.run(options, work, System.err);
        System.err.println("node-soak: logs in " + work.resolve("control-plane/logs"));
        return report("node-soak", result, options.json());
    }

    private static Path workDir(Path repository, String name) {
        return repository.resolve("bench/target").resolve(name)
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    }

    private static int report(String name, SoakResult result, Path json) throws IOException {
        System.out.print(result.table());
        if (json != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), result);
        }
        if (result.totalViolations() > 0) {
            System.err.println(name + ": FAILED: " + result.violations());
            return 1;
        }
        return 0;
    }
}
