package io.elasticgpu.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.elasticgpu.cli.Egpu;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the Helm chart runs, read from {@code helm template} of {@code deploy/helm/elastic-gpu} with its default
 * values: the second kube-scheduler's configuration, the extender's arguments, and the JVM options and memory
 * limits of the extender and the controller containers.
 *
 * @param schedulerConfig the KubeSchedulerConfiguration, as the chart's ConfigMap holds it
 * @param extenderArgs    the extender container's arguments after {@code scheduler}, its configuration file as the
 *                        flags it stands for, without its addresses
 * @param extender        the extender container's JVM options and memory limit
 * @param controller      the controller container's
 */
public record ChartConfig(ObjectNode schedulerConfig, List<String> extenderArgs, Jvm extender, Jvm controller) {

    /**
     * A container's {@code JAVA_TOOL_OPTIONS} and memory limit.
     *
     * @param toolOptions the options as the chart sets them
     * @param limitMib    {@code resources.limits.memory} in MiB, 0 for none
     */
    public record Jvm(List<String> toolOptions, long limitMib) {

        public static final Jvm NONE = new Jvm(List.of(), 0);

        /**
         * The options with {@code -Xmx} as the memory limit would make the heap ({@code MaxRAMPercentage} of it, the
         * JVM's 25 % by default), for a JVM started outside a cgroup of that limit.
         */
        public List<String> heapSized() {
            List<String> jvm = new ArrayList<>(toolOptions);
            if (limitMib > 0) {
                String percent = toolOptions.stream()
                        .filter(o -> o.startsWith("-XX:MaxRAMPercentage="))
                        .findFirst()
                        .map(o -> o.substring(o.indexOf('=') + 1))
                        .orElse("25");
                jvm.add("-Xmx" + (long) (limitMib * Double.parseDouble(percent) / 100) + "m");
            }
            return jvm;
        }
    }

    /** The extender's JVM options, with {@code -Xmx} as its memory limit makes it. */
    public List<String> extenderJvm() {
        return extender.heapSized();
    }

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String SCHEDULER_CONFIG_MAP = "elastic-gpu-scheduler-config";
    /** The extender's configuration file ({@code egpu scheduler --config}), as the chart renders it. */
    private static final String EXTENDER_CONFIG_MAP = "elastic-gpu-extender-config";
    /** The Deployment the extender runs in, as a container of the second scheduler's pods. */
    private static final String SCHEDULER = "elastic-gpu-scheduler";
    /** The controller's container, in the Deployment whose name ends with {@link #CONTROLLER_DEPLOYMENT}. */
    private static final String CONTROLLER = "controller";

    private static final String CONTROLLER_DEPLOYMENT = "elastic-gpu-controller";

    private static final String EXTENDER = "extender";

    /** Renders the chart with the helm {@code deploy/bin/build-helm} provides (building it once if missing). */
    public static ChartConfig render(Path repository) {
        return render(repository, java.util.Map.of());
    }

    /** The same with values set ({@code helm template --set-string key=value} for each). */
    public static ChartConfig render(Path repository, java.util.Map<String, String> values) {
        Path deploy = repository.resolve("deploy");
        String helm = helm(deploy);
        List<String> command = new ArrayList<>(List.of(
                helm,
                "template",
                "elastic-gpu",
                deploy.resolve("helm/elastic-gpu").toString(),
                "--namespace",
                "elastic-gpu-system"));
        new java.util.TreeMap<>(values).forEach((k, v) -> command.addAll(List.of("--set-string", k + "=" + v)));
        return parse(run(command));
    }

    /** The helm {@code deploy/bin/build-helm} builds into the e2e cache, built first on a machine that lacks it. */
    private static String helm(Path deploy) {
        String build = deploy.resolve("bin/build-helm").toString();
        run(List.of(build));
        return run(List.of(build, "--print-path")).strip();
    }

    /**
     * The DeviceClasses the chart installs for DRA nodes ({@code nodeAgent.api: dra}, otherwise its defaults): what
     * claims name, written once in the chart's template.
     */
    public static List<DeviceClass> deviceClasses(Path repository) {
        Path deploy = repository.resolve("deploy");
        String helm = helm(deploy);
        String rendered = run(List.of(
                helm,
                "template",
                "elastic-gpu",
                deploy.resolve("helm/elastic-gpu").toString(),
                "--namespace",
                "elastic-gpu-system",
                "--set",
                "nodeAgent.api=dra",
                "--show-only",
                "templates/device-classes.yaml"));
        List<DeviceClass> classes = new ArrayList<>();
        for (String doc : rendered.split("(?m)^---\\s*$")) {
            if (!doc.isBlank() && doc.contains("kind: DeviceClass")) {
                classes.add(Serialization.unmarshal(doc, DeviceClass.class));
            }
        }
        if (classes.isEmpty()) {
            throw new IllegalStateException(
                    "the chart rendered no DeviceClass with nodeAgent.api=dra; was device-classes.yaml renamed?");
        }
        return classes;
    }

    static ChartConfig parse(String rendered) {
        ObjectNode scheduler = null;
        String extenderFile = null;
        JsonNode extender = null;
        JsonNode controller = null;
        try (var docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(rendered)) {
            while (docs.hasNext()) {
                JsonNode doc = docs.next();
                String name =
                        doc == null ? "" : doc.path("metadata").path("name").asText();
                if (doc != null && doc.path("kind").asText().equals("ConfigMap") && name.equals(SCHEDULER_CONFIG_MAP)) {
                    scheduler = (ObjectNode)
                            YAML.readTree(doc.path("data").path("config.yaml").asText());
                } else if (doc != null
                        && doc.path("kind").asText().equals("ConfigMap")
                        && name.equals(EXTENDER_CONFIG_MAP)) {
                    extenderFile = doc.path("data").path("config.yaml").asText();
                } else if (doc != null && doc.path("kind").asText().equals("Deployment") && name.equals(SCHEDULER)) {
                    for (JsonNode container :
                            doc.path("spec").path("template").path("spec").path("containers")) {
                        if (container.path("name").asText().equals(EXTENDER)) {
                            extender = container;
                        }
                    }
                } else if (doc != null
                        && doc.path("kind").asText().equals("Deployment")
                        && name.endsWith(CONTROLLER_DEPLOYMENT)) {
                    for (JsonNode container :
                            doc.path("spec").path("template").path("spec").path("containers")) {
                        if (container.path("name").asText().equals(CONTROLLER)) {
                            controller = container;
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the rendered chart: " + e.getMessage(), e);
        }
        if (scheduler == null || extender == null) {
            throw new IllegalStateException("the rendered chart has no ConfigMap " + SCHEDULER_CONFIG_MAP
                    + " or no container " + EXTENDER + " in Deployment " + SCHEDULER + "; was the chart renamed?");
        }
        return new ChartConfig(
                scheduler,
                arguments(extender, extenderFile),
                jvm(extender),
                controller == null ? Jvm.NONE : jvm(controller));
    }

    /** The scheduler configuration calling the extender at {@code url}, without leader election (one replica). */
    public ObjectNode withExtenderAt(String url) {
        ObjectNode config = schedulerConfig.deepCopy();
        config.withArray("extenders").forEach(e -> ((ObjectNode) e).put("urlPrefix", url));
        config.withObject("leaderElection").removeAll().put("leaderElect", false);
        return config;
    }

    /** The same scheduler without the extender: the control plane's own ceiling. */
    public ObjectNode withoutExtender() {
        ObjectNode config = schedulerConfig.deepCopy();
        config.remove("extenders");
        config.withObject("leaderElection").removeAll().put("leaderElect", false);
        return config;
    }

    /** The name pods must give as {@code spec.schedulerName}. */
    public String schedulerName() {
        return schedulerConfig.path("profiles").path(0).path("schedulerName").asText("default-scheduler");
    }

    public static Path write(ObjectNode config, Path file) {
        try {
            YAML.writeValue(file.toFile(), config);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The container's arguments with {@code --config FILE} replaced by the flags the chart's file stands for (the same
     * precedence: the harness's flags after them override them).
     */
    private static List<String> arguments(JsonNode container, String file) {
        List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asText()));
        int config = args.indexOf("--config");
        if (config >= 0) {
            if (file == null) {
                throw new IllegalStateException("the extender runs with --config " + args.get(config + 1)
                        + " and the rendered chart has no ConfigMap " + EXTENDER_CONFIG_MAP + "; was it renamed?");
            }
            args.subList(config, config + 2).clear();
            args.addAll(config, Egpu.flagsOf("scheduler", file));
        }
        // The harness chooses the addresses: a free loopback port for the verbs, none for metrics.
        for (String address : List.of("--listen", "--metrics-listen")) {
            int at = args.indexOf(address);
            if (at >= 0) {
                args.subList(at, at + 2).clear();
            }
        }
        if (!args.isEmpty() && args.getFirst().equals("scheduler")) {
            args.removeFirst();
        }
        return args;
    }

    /** A container's {@code JAVA_TOOL_OPTIONS} and memory limit. */
    private static Jvm jvm(JsonNode container) {
        List<String> options = new ArrayList<>();
        container.path("env").forEach(e -> {
            if (e.path("name").asText().equals("JAVA_TOOL_OPTIONS")) {
                options.addAll(Arrays.asList(e.path("value").asText().trim().split("\\s+")));
            }
        });
        String limit = container.path("resources").path("limits").path("memory").asText("");
        long mib = limit.endsWith("Mi") ? Long.parseLong(limit.substring(0, limit.length() - 2)) : 0;
        return new Jvm(List.copyOf(options), mib);
    }

    private static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed; see its output above");
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
