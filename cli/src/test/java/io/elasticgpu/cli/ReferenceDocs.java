package io.elasticgpu.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options tables of {@code docs/reference/<command>.md}, generated from picocli's {@link CommandSpec} of each
 * {@code egpu} subcommand so that they cannot drift from the code. A page holds prose written by hand and one table
 * between {@value #BEGIN} and {@value #END}; {@link #withTable} replaces only what lies between them.
 * {@code ReferenceDocsTest} compares every page with what this renders, and rewrites the tables in place when run
 * with {@code -D}{@value #WRITE_PROPERTY}{@code =true}.
 */
final class ReferenceDocs {

    static final String BEGIN = "<!-- options:begin -->";
    static final String END = "<!-- options:end -->";
    static final String WRITE_PROPERTY = "egpu.docs.write";
    /** The markers of the configuration file's schema in {@code docs/reference/configuration.md}. */
    static final String SCHEMA_BEGIN = "<!-- schema:begin -->";

    static final String SCHEMA_END = "<!-- schema:end -->";
    static final String REGENERATE = "./mvnw -q -pl cli -am test -Dtest=ReferenceDocsTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -D" + WRITE_PROPERTY + "=true";

    private ReferenceDocs() {}

    /**
     * Every subcommand of {@code egpu} by name, in the order {@code egpu --help} lists them; picocli's own {@code help}
     * left out. */
    static Map<String, CommandSpec> subcommands() {
        Map<String, CommandSpec> commands = new LinkedHashMap<>();
        Egpu.commandLine().getSubcommands().forEach((name, command) -> {
            if (!(command.getCommand() instanceof CommandLine.HelpCommand)) {
                commands.put(name, command.getCommandSpec());
            }
        });
        return commands;
    }

    /** {@code docs/reference/<command>.md} of the repository at {@code root}. */
    static Path page(Path root, String command) {
        return root.resolve("docs").resolve("reference").resolve(command + ".md");
    }

    /** The Markdown table of a command's options: one row each, in the order the command declares them. */
    static String optionsTable(CommandSpec spec) {
        List<String> rows = new ArrayList<>();
        rows.add("| option | default | description |");
        rows.add("|---|---|---|");
        for (OptionSpec option : spec.options()) {
            rows.add("| `%s` | %s | %s |"
                    .formatted(
                            cell(synopsis(spec, option)),
                            cell(defaultOf(spec, option)),
                            cell(String.join(" ", option.renderedDescription()).strip())));
        }
        return String.join("\n", rows);
    }

    /** The page with the text between its markers replaced by {@code table}; everything else as it was. */
    static String withTable(String page, String table) {
        return withTable(page, table, BEGIN, END);
    }

    /** The page with the text between {@code begin} and {@code end} replaced by {@code table}. */
    static String withTable(String page, String table, String beginMarker, String endMarker) {
        int begin = page.indexOf(beginMarker);
        int end = page.indexOf(endMarker);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the page has no options table: put a line " + beginMarker
                    + " and, below it, a line " + endMarker + " where the table goes");
        }
        return page.substring(0, begin + beginMarker.length()) + "\n" + table + "\n" + page.substring(end);
    }

    /** The text between the page's markers, without the line breaks next to them; empty without markers. */
    static String tableIn(String page) {
        return tableIn(page, BEGIN, END);
    }

    /** The text between {@code begin} and {@code end}, without the line breaks next to them; empty without them. */
    static String tableIn(String page, String beginMarker, String endMarker) {
        int begin = page.indexOf(beginMarker);
        int end = page.indexOf(endMarker);
        return begin < 0 || end < begin
                ? ""
                : page.substring(begin + beginMarker.length(), end).strip();
    }

    /**
     * The configuration file's schema: for each component's section, one row per key with its flag, environment
     * variable, value and default, in the order the command declares its options.
     */
    static String schema() {
        List<String> out = new ArrayList<>();
        Map<String, CommandSpec> commands = subcommands();
        for (String name : ConfigFile.COMMANDS) {
            CommandSpec spec = commands.get(name);
            if (!out.isEmpty()) {
                out.add("");
            }
            out.add("### `%s` (egpu %s)".formatted(ConfigFile.section(name), name));
            out.add("");
            out.add("| key | flag | environment | value | default |");
            out.add("|---|---|---|---|---|");
            for (OptionSpec option : spec.options()) {
                if (!ConfigSource.keys(spec).contains(ConfigSource.key(option))
                        || option.longestName().equals(ConfigSource.CONFIG)) {
                    continue;
                }
                String value = option.arity().max() == 0
                        ? "`true` or `false`"
                        : "`" + option.paramLabel() + (option.splitRegex().isEmpty() ? "`" : "` (a list)");
                String flagDefault = defaultOf(spec, option);
                String keyDefault = ConfigSource.inverted(option)
                        ? "`true`"
                        : option.negatable() ? "as the flag's" : option.arity().max() == 0 ? "`false`" : flagDefault;
                out.add("| `%s` | `%s` | `%s` | %s | %s |"
                        .formatted(
                                ConfigSource.key(option),
                                option.longestName(),
                                ConfigSource.env(ConfigSource.key(option)),
                                cell(value),
                                keyDefault));
            }
        }
        return String.join("\n", out);
    }

    /**
     * The checkout this test runs in: the nearest directory above the working directory that holds {@code mvnw} and
     * {@code docs}. */
    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no directory above " + Path.of("").toAbsolutePath() + " holds mvnw and docs/");
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code -o, --output table|wide|json|yaml}: every name, then the parameter unless the option is a flag. */
    private static String synopsis(CommandSpec spec, OptionSpec option) {
        String names = java.util.Arrays.stream(option.names())
                .map(name -> option.negatable() && name.startsWith("--")
                        ? spec.negatableOptionTransformer().makeSynopsis(name, spec)
                        : name)
                .collect(Collectors.joining(", "));
        if (option.arity().max() == 0) {
            return names;
        }
        String label = option.paramLabel();
        return option.splitRegex().isEmpty() ? names + " " + label : names + " " + label + "[," + label + "…]";
    }

    /**
     * The default as written in the code, not as this machine would resolve it: {@code ${env:NODE_NAME}} is shown as
     * {@code $NODE_NAME}, whatever the environment holds; an empty default is shown as "empty". A field's initial value
     * counts when no default is given; flags have none.
     */
    private static String defaultOf(CommandSpec spec, OptionSpec option) {
        if (option.arity().max() == 0) {
            return "";
        }
        boolean interpolating = spec.interpolateVariables();
        String written;
        try {
            spec.interpolateVariables(false);
            written = option.defaultValue();
        } finally {
            spec.interpolateVariables(interpolating);
        }
        if (written == null && option.initialValue() != null) {
            written = String.valueOf(option.initialValue());
        }
        if (written == null) {
            return "";
        }
        return written.isEmpty()
                ? "empty"
                : "`" + written.replaceAll("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}", "\\$$1") + "`";
    }

    /** A table cell: a pipe would end the cell, so it is escaped (GitHub reads {@code \|} as | also inside code). */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
