package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Egpu.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    @Test
    void replaysTheBuiltInClusterWhenNoTraceIsGiven() {
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack,spread"))
                .isZero();
        assertThat(out.toString())
                .startsWith("trace synthetic-2026: 200 nodes, 1000 GPUs, 6000 pods; seeds [1];")
                .contains("\nbinpack ")
                .contains("\nspread ");
    }

    @Test
    void printsOneJsonObjectPerPolicy() {
        assertThat(run("simulate", "--seeds", "1,2", "--policy", "binpack", "--format", "json"))
                .isZero();
        assertThat(out.toString())
                .startsWith("{\"trace\": \"synthetic-2026\", \"policy\": \"binpack\", \"seeds\": [1, 2],")
                .contains("\"allocationAtArrival100\": {\"mean\": ")
                .contains("\"curve\": [[0, ");
    }

    @Test
    void drawsACharts() throws IOException {
        Path png = dir.resolve("c.png");
        Path svg = dir.resolve("c.svg");
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack", "--chart", png.toString()))
                .isZero();
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack", "--chart", svg.toString()))
                .isZero();
        assertThat(Files.readAllBytes(png)).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
        assertThat(Files.readString(svg)).startsWith("<svg").contains("binpack");
    }

    @Test
    void boundPutsTheCeilingBesideEveryPolicy() {
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack,spread", "--bound", "--format", "json"))
                .isZero();
        assertThat(out.toString())
                .containsPattern(
                        "\"policy\": \"binpack\".*\"boundPct\": \\d+\\.\\d\\d," + " \"offlinePct\": \\d+\\.\\d\\d");
        assertThat(out.toString()).containsPattern("\"policy\": \"spread\".*\"boundPct\": ");
        out.getBuffer().setLength(0);
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack", "--bound"))
                .isZero();
        assertThat(out.toString()).contains("possible on these orders: bound ").contains("offline packing ");
    }

    @Test
    void boundWithTooFewArrivalsSaysWhatToChange() {
        assertThat(run("simulate", "--seeds", "1", "--policy", "binpack", "--bound", "--inflation", "0.5"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("the pods arrive until 50 % of GPU capacity, short of the 100 %")
                .contains("--inflation");
    }

    @Test
    void anUnknownPolicyExitsWithTwoAndTheChoices() {
        assertThat(run("simulate", "--policy", "fgd,tetris")).isEqualTo(2);
        assertThat(err.toString())
                .isEqualTo("egpu simulate: unknown policy \"tetris\" in --policy; choose from"
                        + " elastic, binpack, spread, random, dot-product, gpu-clustering, gpu-packing, best-fit, "
                        + "fgd, elastic-lookahead, paper or all"
                        + System.lineSeparator());
    }

    @Test
    void migComparesTheH100sFixedPartitionsWithEachPolicysShares() {
        assertThat(run("simulate", "--seeds", "1", "--policy", "best-fit", "--mig"))
                .isZero();
        assertThat(out.toString())
                .startsWith(
                        "{\"trace\": \"synthetic-2026\", \"migGeometry\": \"NVIDIA H100 80GB HBM3\", \"seeds\": [1]")
                .contains("\"best-fit\": {\"gpuAllocationPct\": ")
                .contains("\"mig\": {\"gpuAllocationPct\": ")
                .contains("\"mig-first-fit\": {")
                .contains("\"1g.10gb\": ");
    }

    @Test
    void migOnACardWithoutMigExitsWithTwoAndTheModelsThatHaveIt() {
        assertThat(run("simulate", "--seeds", "1", "--mig=Tesla T4")).isEqualTo(2);
        assertThat(err.toString())
                .contains("--mig: Tesla T4 has no MIG geometry here; name one of [NVIDIA A100-SXM4-40GB,");
    }

    @Test
    void badSeedsExitWithTwo() {
        assertThat(run("simulate", "--seeds", "forty")).isEqualTo(2);
        assertThat(err.toString()).contains("--seeds must be a range like 42-51 or a list like 42,43, was \"forty\"");
        assertThat(run("simulate", "--seeds", "51-42")).isEqualTo(2);
    }

    @Test
    void aMissingTraceExitsWithTwoAndNamesTheFile() {
        Path missing = dir.resolve("nope.csv");
        assertThat(run("simulate", "--trace", missing.toString())).isEqualTo(2);
        assertThat(err.toString()).contains(missing.toString()).contains("no such file");
    }

    @Test
    void aBadFormatOrChartExitsWithTwo() {
        assertThat(run("simulate", "--format", "xml")).isEqualTo(2);
        assertThat(err.toString()).contains("--format must be table or json, was \"xml\"");
        assertThat(run("simulate", "--chart", "c.gif")).isEqualTo(2);
    }

    @Test
    void seedsAndPolicyAliasesExpand() {
        assertThat(SimulateCommand.seeds("42-45")).containsExactly(42L, 43L, 44L, 45L);
        assertThat(SimulateCommand.seeds("7, 9,7")).containsExactly(7L, 9L);
        assertThat(SimulateCommand.policies("paper"))
                .containsExactly("random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd");
        assertThat(SimulateCommand.policies("all"))
                .hasSize(10)
                .startsWith("random")
                .endsWith("spread", "elastic-lookahead");
    }
}
