package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.elasticgpu.cli.Egpu;
import io.elasticgpu.e2e.deploy.ChartFlags.Component;
import io.elasticgpu.e2e.deploy.ChartFlags.Row;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The table of chart values and {@code egpu} flags ({@link ChartFlags}) against both sides: the chart as helm renders
 * it ({@code deploy/bin/build-helm}), and each command's picocli spec. Every row's flag is rendered, with its argument,
 * in its component's arguments when its value is set; every flag the chart renders in its variants (the defaults,
 * {@code deploy/helm/all-options.yaml}, {@code deploy/helm/per-node.yaml}) is a row; and every row's flag is an option
 * of its command, a switch where the chart passes no argument. A value or flag renamed on one side fails here, not on
 * a node.
 */
class ChartFlagsE2E {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The chart's variants check-chart renders, by values file (none: the defaults). */
    private static final Map<String, List<String>> VARIANTS = variants();

    static Stream<Row> rows() {
        return ChartFlags.ROWS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void theRowsValueIsRenderedAsItsFlagInItsComponentsArguments(Row row) throws Exception {
        List<String> options = new ArrayList<>(List.of(
                "--namespace",
                row.value().equals(ChartFlags.RELEASE_NAMESPACE) ? row.example() : "elastic-gpu-system"));
        row.with().forEach((value, setting) -> options.addAll(List.of("--set", value + "=" + setting)));
        if (!row.value().equals(ChartFlags.RELEASE_NAMESPACE) && !row.value().equals(ChartFlags.FIXED)) {
            options.addAll(List.of("--set", row.value() + "=" + row.example()));
        }

        List<List<String>> args = arguments(RenderedChart.template(options)).getOrDefault(row.component(), List.of());

        assertThat(args)
                .as("%s containers rendered with %s", row.component().command, options)
                .isNotEmpty();
        for (List<String> a : args) {
            if (row.isSwitch()) {
                assertThat(a).as("the arguments of %s", row.component().command).contains(row.flag());
            } else {
                assertThat(a)
                        .as("the arguments of %s", row.component().command)
                        .containsSubsequence(row.flag(), row.argument());
                assertThat(a.get(a.indexOf(row.flag()) + 1))
                        .as("%s's argument", row.flag())
                        .isEqualTo(row.argument());
            }
        }
    }

    /**
     * Every flag in the arguments of every egpu container (node agents, controller, extender), in every variant, is a
     * row of the table for that component: the table is the whole mapping.
     */
    @Test
    void everyFlagTheChartRendersIsARowOfTheTable() throws Exception {
        List<String> missing = new ArrayList<>();
        int flags = 0;
        for (var variant : VARIANTS.entrySet()) {
            List<String> options = new ArrayList<>(List.of("--namespace", "elastic-gpu-system"));
            variant.getValue().forEach(file -> options.addAll(List.of("--values", file)));
            for (var component : arguments(RenderedChart.template(options)).entrySet()) {
                for (List<String> args : component.getValue()) {
                    for (String arg : args) {
                        if (!arg.startsWith("--")) {
                            continue;
                        }
                        flags++;
                        if (ChartFlags.ROWS.stream()
                                .noneMatch(r -> r.component() == component.getKey()
                                        && r.flag().equals(arg))) {
                            missing.add("%s: %s %s".formatted(variant.getKey(), component.getKey().command, arg));
                        }
                    }
                }
            }
        }
        assertThat(flags).as("flags the chart renders").isGreaterThan(30);
        assertThat(missing).as("flags the chart renders that ChartFlags lacks").isEmpty();
    }

    /**
     * Every row's flag is an option of its command's picocli spec (a flag renamed or removed in the CLI fails here):
     * one that takes an argument where the chart passes one, a switch where it passes none.
     */
    @Test
    void everyFlagOfTheTableIsAnOptionOfItsCommand() {
        Map<String, CommandLine> commands = new CommandLine(new Egpu()).getSubcommands();
        List<String> unknown = new ArrayList<>();
        for (Row row : ChartFlags.ROWS) {
            CommandSpec spec = commands.get(row.component().command).getCommandSpec();
            OptionSpec option = spec.findOption(row.flag());
            if (option == null) {
                unknown.add(row + ": egpu " + row.component().command + " has no " + row.flag());
            } else if (row.isSwitch() != (option.arity().max() == 0)) {
                unknown.add(row + ": egpu " + row.component().command + " " + row.flag() + " takes "
                        + (row.isSwitch() ? "an argument" : "none"));
            }
        }
        assertThat(unknown)
                .as("rows whose flag egpu does not have as the chart passes it")
                .isEmpty();
        assertThat(ChartFlags.ROWS).extracting(Row::component).contains(Component.values());
    }

    /**
     * The arguments of every container running egpu, by component (a component may run in several workloads), with
     * {@code --config FILE} replaced by the flags the file's section stands for ({@link RenderedChart#arguments}).
     */
    private static Map<Component, List<List<String>>> arguments(String rendered) throws IOException {
        List<JsonNode> objects = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(rendered)) {
            for (JsonNode object : YAML.readValues(parser, JsonNode.class).readAll()) {
                if (object != null) { // null: an empty document between two ---
                    objects.add(object);
                }
            }
        }
        List<HasMetadata> configMaps = objects.stream()
                .filter(o -> o.path("kind").asText().equals("ConfigMap"))
                .map(o -> (HasMetadata) YAML.convertValue(o, ConfigMap.class))
                .toList();
        Map<Component, List<List<String>>> out = new LinkedHashMap<>();
        for (JsonNode object : objects) {
            JsonNode template = object.path("spec").path("template").path("spec");
            if (template.isMissingNode()) {
                continue;
            }
            PodSpec pod = YAML.convertValue(template, PodSpec.class);
            for (Container container : pod.getContainers()) {
                List<String> args = container.getArgs();
                for (Component c : Component.values()) {
                    if (!args.isEmpty() && c.command.equals(args.getFirst())) {
                        out.computeIfAbsent(c, k -> new ArrayList<>())
                                .add(RenderedChart.arguments(configMaps, pod, container));
                    }
                }
            }
        }
        return out;
    }

    private static Map<String, List<String>> variants() {
        Map<String, List<String>> variants = new LinkedHashMap<>();
        variants.put("defaults", List.of());
        variants.put(
                "all-options",
                List.of(RenderedChart.DEPLOY.resolve("helm/all-options.yaml").toString()));
        variants.put(
                "per-node",
                List.of(RenderedChart.DEPLOY.resolve("helm/per-node.yaml").toString()));
        return variants;
    }
}
