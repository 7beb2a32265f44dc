package io.elasticgpu.bench;

import io.elasticgpu.bench.arena.Arena;
import io.elasticgpu.bench.arena.ArenaOptions;
import io.elasticgpu.bench.arena.ArenaReport;
import io.elasticgpu.bench.arena.Standing;
import io.elasticgpu.simulator.trace.TraceFormatException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * {@code bench/run arena}: the options, each contender's run, the table, the chart and the JSON; exit 2 for bad input or
 * a contender that cannot be run (Go or HAMi's source missing), 1 when a contender over-commits a card.
 */
final class ArenaCommand {

    private ArenaCommand() {
    }

    static int run(List<String> args, Path shared) throws Exception {
        if (!args.isEmpty() && args.getFirst().equals("--report")) {
            return report(args.subList(1, args.size()));
        }
        ArenaOptions options;
        try {
            options = ArenaOptions.parse(args, shared);
        } catch (IllegalArgumentException e) {
            System.err.println("arena: " + e.getMessage());
            System.err.println(ArenaOptions.USAGE);
            return 2;
        }
        Path repository = Path.of("").toAbsolutePath();
        Path work = repository.resolve("bench/target/arena")
                .resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        List<Standing> standings;
        try {
            standings = Arena.run(options, repository, work, System.err);
        } catch (TraceFormatException | IllegalArgumentException e) {
            System.err.println("arena: " + e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("HAMi's scheduler cannot be built")) {
                System.err.println("arena: " + e.getMessage());
                return 2;
            }
            throw e;
        }
        System.out.print(ArenaReport.table(standings));
        System.out.print(ArenaReport.curveTable(standings));
        System.err.println("arena: logs in " + work);
        if (options.json() != null) {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.json().toFile(), standings);
        }
        if (options.chart() != null) {
            ArenaReport.chart(options.chart(), standings);
        }
        return verdict(standings);
    }

    /**
     * {@code --report A.json[,B.json…] [--chart F]}: the table (and chart) of contenders measured in earlier runs, in
     * the order given: a contender run again on its own joins the others' table.
     */
    private static int report(List<String> args) throws Exception {
        if (args.isEmpty() || args.getFirst().startsWith("--")) {
            System.err.println("arena: --report needs the JSON files of earlier runs, comma-separated");
            return 2;
        }
        List<Standing> standings = new java.util.ArrayList<>();
        for (String file : args.getFirst().split(",")) {
            standings.addAll(List.of(new ObjectMapper().readValue(Path.of(file).toFile(), Standing[].class)));
        }
        System.out.print(ArenaReport.table(standings));
        System.out.print(ArenaReport.curveTable(standings));
        if (args.size() == 3 && args.get(1).equals("--chart")) {
            ArenaReport.chart(Path.of(args.get(2)), standings);
        }
        return verdict(standings);
    }

    private static int verdict(List<Standing> standings) {
        boolean over = standings.stream().anyMatch(s -> s.overCommittedCards() > 0 || s.unaccounted() > 0);
        if (over) {
            System.err.println("arena: a contender put cards over capacity or lost track of pods (see the table): a finding"
                    + " about it");
        }
        return over ? 1 : 0;
    }
}
