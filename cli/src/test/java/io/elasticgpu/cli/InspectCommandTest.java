package io.elasticgpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.controller.view.ViewFormat;
import io.elasticgpu.core.model.ModelTable;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code egpu inspect} parses its options and prints the view in the format asked, from a fixed listing. */
class InspectCommandTest {

    private static final InspectCommand.Listing LISTING = new InspectCommand.Listing(
            List.of(new NodeBuilder()
                    .withNewMetadata()
                    .withName("n1")
                    .addToAnnotations(
                            Annotations.INVENTORY,
                            new NodeInventory(
                                            List.of(new NodeInventory.Card(0, "GPU-0", "Tesla T4", 15360, true, 0)),
                                            List.of())
                                    .toJson())
                    .endMetadata()
                    .build()),
            List.of(new PodBuilder()
                    .withNewMetadata()
                    .withNamespace("ml")
                    .withName("infer")
                    .withUid("uid-infer")
                    .addToAnnotations(
                            Annotations.ALLOCATION,
                            new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(0, "GPU-0", 500, 4096))))
                                    .toJson())
                    .addToAnnotations(Annotations.PHASE, "allocated")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("n1")
                    .endSpec()
                    .build()));

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final List<Path> kubeconfigsAsked = new ArrayList<>();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new InspectCommand(kubeconfig -> {
            kubeconfigsAsked.add(kubeconfig);
            return LISTING;
        }));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    /**
     * {@code --extender}: what the extender's cache believes, against a fresh list, from its {@code /debug/cache},
     * here an answer made by the scheduler's own cache over the listing above, with a card the API says is held
     * differently planted.
     */
    @Test
    void theExtendersCacheIsSummedUpWithEachDifferenceAndExitCode1() throws Exception {
        var gpu = (java.util.function.Predicate<io.fabric8.kubernetes.api.model.Pod>)
                p -> io.elasticgpu.api.v1alpha1.PodAsks.asksGpu(p, io.elasticgpu.api.v1alpha1.PodAsks.Units.DEFAULT);
        var cache = io.elasticgpu.scheduler.cache.CacheDump.ofLists(gpu, 1, LISTING.nodes(), LISTING.pods(), List.of());
        var api = io.elasticgpu.scheduler.cache.CacheDump.ofLists(gpu, 1, LISTING.nodes(), List.of(), List.of());
        Map<String, Object> report =
                Map.of("cache", cache, "compared", true, "why", "", "differences", cache.differences(api));
        var server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        byte[] body = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsBytes(report);
        server.createContext("/debug/cache", x -> {
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        try {
            int code =
                    run("--extender", "http://127.0.0.1:" + server.getAddress().getPort());

            assertThat(code).isEqualTo(1);
            assertThat(out.toString().lines())
                    .containsExactly(
                            "the extender's cache: 1 nodes with cards, 1 cards, 1 holdings, 0 of them assumed (its own"
                                    + " binds and filter decisions, not yet seen in the API)",
                            "compared with a fresh list from the API: 1 difference",
                            "  node n1 card 0: uid-infer (ml/infer) holds 4096 MiB and 500 milli in the cache, nothing"
                                    + " in the API");
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anExtenderThatDoesNotAnswerIsExitCode3WithWhy() {
        int code = run("--extender", "http://127.0.0.1:1");

        assertThat(code).isEqualTo(3);
        assertThat(err.toString()).startsWith("egpu inspect: cannot ask the extender: ");
    }

    @Test
    void optionsReachTheCommand() {
        InspectCommand command = new InspectCommand(k -> LISTING);
        new CommandLine(command)
                .parseArgs("--kubeconfig", "/tmp/kc", "--node", "n1", "--namespace", "ml", "-o", "yaml");
        assertThat(command.kubeconfig.path()).isEqualTo(Path.of("/tmp/kc"));
        assertThat(command.node).isEqualTo("n1");
        assertThat(command.namespace).isEqualTo("ml");
        assertThat(command.format).isEqualTo(ViewFormat.YAML);
    }

    @Test
    void theDefaultIsTheTableFromTheDefaultKubeconfig() {
        assertThat(run()).isZero();
        assertThat(kubeconfigsAsked).containsExactly((Path) null);
        assertThat(out.toString())
                .startsWith("GPU nodes  1, 1 card\n")
                .contains("  0     Tesla T4                  4.0/15.0   50%          -  infer\n");
    }

    @ParameterizedTest(name = "-o {0} prints what begins with {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "table | GPU nodes  1, 1 card",
                "wide  | GPU nodes  1, 1 card",
                "json  | {",
                "yaml  | scope: {}",
            })
    void eachFormatPrintsItsRendering(String format, String start) {
        assertThat(run("-o", format)).isZero();
        assertThat(out.toString()).startsWith(start);
        assertThat(out.toString())
                .isEqualTo(ViewFormat.parse(format)
                        .render(io.elasticgpu.controller.view.ClusterView.of(LISTING.nodes(), LISTING.pods())));
    }

    @Test
    void anUnknownFormatIsAUsageErrorListingTheChoices() {
        CommandLine cli = Egpu.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("inspect", "-o", "xml")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("Invalid value for option '--output': "
                        + "expected one of table, wide, json, yaml, was \"xml\"");
    }

    @Test
    void aNodeWithoutInventoryExitsWithTwoNamingTheGpuNodes() {
        CommandLine cli = new CommandLine(new InspectCommand(k -> LISTING));
        cli.setErr(new PrintWriter(err));
        cli.setExecutionExceptionHandler(Egpu.commandLine().getExecutionExceptionHandler());
        assertThat(cli.execute("--node", "n2")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("egpu inspect: node n2 has no readable GPU inventory; GPU nodes: n1\n");
    }

    @Test
    void freeTflopsAreShownInTheDefaultPrecisionOrTheOneAsked() {
        // a T4 has no bf16 figure; in fp32 (8.1) half of it is free: 4.05
        assertThat(run()).isZero();
        assertThat(out.toString())
                .contains("  free: TFLOPS bf16 unknown: 1 card: no bf16 figure\n")
                .contains("  - no bf16 figure in the model table for its model\n");
        out.getBuffer().setLength(0);
        assertThat(run("--precision", "fp32")).isZero();
        assertThat(out.toString())
                .contains("free       4.05 TFLOPS fp32 on healthy cards\n")
                .contains("  CARD  MODEL                  GRANTED GiB  CORE  FREE FP32  PODS\n")
                .contains("  0     Tesla T4                  4.0/15.0   50%       4.05  infer\n");
        out.getBuffer().setLength(0);
        assertThat(run("--precision", "FP16", "-o", "json")).isZero();
        assertThat(out.toString()).contains("\"precision\": \"fp16\"", "\"free\": 32.50");
    }

    @Test
    void anUnknownPrecisionIsAUsageErrorNamingTheKnownOnes() {
        CommandLine cli = Egpu.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("inspect", "--precision", "fp64")).isEqualTo(2);
        assertThat(err.toString())
                .startsWith("Invalid value for option '--precision': "
                        + "precision \"fp64\" is not one of fp32, tf32, fp16, bf16, int8");
    }

    @Test
    void anOperatorsModelTableGivesFiguresToAModelTheShippedOneLacks(@TempDir Path dir) throws Exception {
        Path table = dir.resolve("models.csv");
        Files.writeString(
                table, ModelTable.HEADER + "\nTesla T4,T4,9,-,70,50,130,https://example.com/operator-figures\n");
        assertThat(run("--model-table", table.toString())).isZero();
        // 50 bf16 x 50 % free = 25.00
        assertThat(out.toString()).contains("  0     Tesla T4                  4.0/15.0   50%      25.00  infer\n");
    }
}
