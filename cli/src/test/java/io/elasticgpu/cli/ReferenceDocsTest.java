package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code docs/reference/<command>.md} holds, for every {@code egpu} subcommand, the options table that picocli's
 * {@link CommandSpec} of the command renders. Run with {@code -Degpu.docs.write=true} it rewrites the tables in place
 * instead of failing.
 */
class ReferenceDocsTest {

    private static final Path ROOT = ReferenceDocs.repositoryRoot();

    @Test
    void everyEgpuSubcommandHasAReferencePageWithAnOptionsTable() {
        List<String> missing = new ArrayList<>();
        for (String command : ReferenceDocs.subcommands().keySet()) {
            Path page = ReferenceDocs.page(ROOT, command);
            if (!Files.isRegularFile(page)) {
                missing.add("egpu %s: %s does not exist; write it (what the command is for, examples) with a line %s"
                                .formatted(
                                        command,
                                        ROOT.relativize(page),
                                        ReferenceDocs.BEGIN + " and a line " + ReferenceDocs.END)
                        + " where its options go, then run " + ReferenceDocs.REGENERATE);
            } else if (!ReferenceDocs.read(page).contains(ReferenceDocs.BEGIN)
                    || !ReferenceDocs.read(page).contains(ReferenceDocs.END)) {
                missing.add("egpu %s: %s has no %s … %s markers; add them where the options table goes"
                        .formatted(command, ROOT.relativize(page), ReferenceDocs.BEGIN, ReferenceDocs.END));
            }
        }
        assertThat(missing).as("reference pages").isEmpty();
    }

    @Test
    void everyOptionsTableIsTheOneGeneratedFromItsCommand() throws IOException {
        boolean write = Boolean.getBoolean(ReferenceDocs.WRITE_PROPERTY);
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, CommandSpec> command :
                ReferenceDocs.subcommands().entrySet()) {
            Path page = ReferenceDocs.page(ROOT, command.getKey());
            String text = Files.isRegularFile(page) ? ReferenceDocs.read(page) : "";
            if (!text.contains(ReferenceDocs.BEGIN) || !text.contains(ReferenceDocs.END)) {
                continue; // the test above names it
            }
            String table = ReferenceDocs.optionsTable(command.getValue());
            if (ReferenceDocs.tableIn(text).equals(table)) {
                continue;
            }
            if (write) {
                Files.writeString(page, ReferenceDocs.withTable(text, table));
            } else {
                stale.add("egpu %s: the options table in %s is not the one its options generate (first difference: %s)"
                        .formatted(
                                command.getKey(),
                                ROOT.relativize(page),
                                firstDifference(ReferenceDocs.tableIn(text), table)));
            }
        }
        assertThat(stale)
                .as("options tables out of date; regenerate them in place with: " + ReferenceDocs.REGENERATE)
                .isEmpty();
    }

    @Test
    void theConfigurationFilesSchemaIsTheOneGeneratedFromTheComponentsOptions() throws IOException {
        Path page = ROOT.resolve("docs/reference/configuration.md");
        String text = ReferenceDocs.read(page);
        String schema = ReferenceDocs.schema();
        String in = ReferenceDocs.tableIn(text, ReferenceDocs.SCHEMA_BEGIN, ReferenceDocs.SCHEMA_END);
        if (!in.equals(schema) && Boolean.getBoolean(ReferenceDocs.WRITE_PROPERTY)) {
            Files.writeString(
                    page, ReferenceDocs.withTable(text, schema, ReferenceDocs.SCHEMA_BEGIN, ReferenceDocs.SCHEMA_END));
            return;
        }
        assertThat(in)
                .as(
                        "the schema in %s is not the one the options generate (first difference: %s);"
                                + " regenerate it with %s",
                        ROOT.relativize(page), firstDifference(in, schema), ReferenceDocs.REGENERATE)
                .isEqualTo(schema);
        assertThat(schema)
                .contains("| `mpsLayout` | `--mps-layout` | `EGPU_MPS_LAYOUT` | `auto\\|per-share\\|per-card\\|v3` |")
                .contains("| `webhook` | `--no-webhook` | `EGPU_WEBHOOK` | `true` or `false` | `true` |");
    }

    @Test
    void aRowNamesTheOptionItsParameterItsDefaultAndItsDescription() {
        String table = ReferenceDocs.optionsTable(new CommandLine(new Sample()).getCommandSpec());

        assertThat(table.lines())
                .containsExactly(
                        "| option | default | description |",
                        "|---|---|---|",
                        "| `-f, --format table\\|json` | `table` | Output: table or json (default table). |",
                        "| `--node NAME` | `$NODE_NAME` | This node. |",
                        "| `--xids XID[,XID…]` | `13,31` | Ignored Xids. |",
                        "| `--dir DIR` | `/var/run/cdi` | Where specs go. |",
                        "| `--[no-]decide` |  | Decide in the filter. |",
                        "| `--dry-run` |  | Change nothing. |",
                        "| `--cgroup-root DIR` | empty | Where cgroups are mounted. |");
    }

    @Test
    void regeneratingReplacesTheTableAndLeavesTheProseAsItWas() {
        String page = "# egpu sample\n\nProse.\n\n" + ReferenceDocs.BEGIN + "\n| old |\n" + ReferenceDocs.END
                + "\n\nMore prose.\n";

        String rewritten = ReferenceDocs.withTable(page, "| new |");

        assertThat(rewritten)
                .isEqualTo("# egpu sample\n\nProse.\n\n" + ReferenceDocs.BEGIN + "\n| new |\n" + ReferenceDocs.END
                        + "\n\nMore prose.\n");
        assertThat(ReferenceDocs.tableIn(rewritten)).isEqualTo("| new |");
    }

    @Test
    void aPageWithoutMarkersIsRefusedSayingWhatToAdd() {
        assertThatThrownBy(() -> ReferenceDocs.withTable("# egpu sample\n\nProse only.\n", "| new |"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the page has no options table: put a line <!-- options:begin --> and, below it, a line"
                        + " <!-- options:end --> where the table goes");
    }

    private static String firstDifference(String page, String generated) {
        List<String> have = page.lines().toList();
        List<String> want = generated.lines().toList();
        for (int i = 0; i < Math.max(have.size(), want.size()); i++) {
            String a = i < have.size() ? have.get(i) : "(nothing)";
            String b = i < want.size() ? want.get(i) : "(nothing)";
            if (!a.equals(b)) {
                return "table line %d is %s, generated %s".formatted(i + 1, a, b);
            }
        }
        return "none";
    }

    @Command(name = "sample")
    static final class Sample {
        @Option(
                names = {"-f", "--format"},
                paramLabel = "table|json",
                defaultValue = "table",
                description = "Output: table or json (default ${DEFAULT-VALUE}).")
        String format;

        @Option(names = "--node", paramLabel = "NAME", defaultValue = "${env:NODE_NAME}", description = "This node.")
        String node;

        @Option(
                names = "--xids",
                paramLabel = "XID",
                split = ",",
                defaultValue = "13,31",
                description = "Ignored Xids.")
        List<Long> xids;

        @Option(names = "--dir", paramLabel = "DIR", description = "Where specs go.")
        Path dir = Path.of("/var/run/cdi");

        @Option(names = "--decide", negatable = true, description = "Decide in the filter.")
        Boolean decide;

        @Option(names = "--dry-run", description = "Change nothing.")
        boolean dryRun;

        @Option(
                names = "--cgroup-root",
                paramLabel = "DIR",
                defaultValue = "",
                description = "Where cgroups are mounted.")
        String cgroupRoot;
    }
}
