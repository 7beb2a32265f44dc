package io.elasticgpu.bench;

import io.elasticgpu.bench.soak.Soak;
import io.elasticgpu.bench.soak.SoakOptions;
import io.elasticgpu.bench.soak.SoakResult;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** {@code bench/run soak}: the options, the soak, the summary and the JSON; exit 1 on any violation, 2 for bad input. */
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
        Path work = repository.resolve("bench/target/soak")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        SoakResult result = Soak.run(options, repository, work, System.err);
        System.out.print(result.table());
        System.err.println("soak: logs in " + work.resolve("logs"));
        if (options.json() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.json().toFile(), result);
        }
        if (result.totalViolations() > 0) {
            System.err.println("soak: FAILED: " + result.violations());
            return 1;
        }
        return 0;
    }
}
