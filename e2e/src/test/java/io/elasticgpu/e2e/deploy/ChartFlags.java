package io.elasticgpu.e2e.deploy;

import java.util.List;
import java.util.Map;

/**
 * The one table of what the Helm chart passes to {@code egpu}: for each value of {@code values.yaml}, the component it
 * reaches and the flag it becomes. The chart writes the settings into each component's configuration file (a
 * ConfigMap, {@code docs/reference/configuration.md}), whose keys stand for flags ({@code Egpu.flagsOf}); the
 * arguments checked are the container's with {@code --config FILE} replaced by those flags. {@code ChartFlagsE2E}
 * renders the chart with every row's value set and checks that its flag is in the component's arguments, that every
 * flag the chart renders is a row, and that every flag is an option of its command. A value or a flag renamed on one
 * side only fails there.
 *
 * <p>A row sets {@link Row#value} to {@link Row#example} (with the other values in {@link Row#with} that the flag
 * needs), and expects {@link Row#flag} followed by {@link Row#argument} (none for a switch) in the arguments of
 * every container of {@link Row#component}. Two sources are not in {@code values.yaml}: {@value #RELEASE_NAMESPACE},
 * the namespace helm installs into, and {@value #FIXED}, an argument the chart always passes.
 */
final class ChartFlags {

    /** The release's namespace ({@code helm --namespace}). */
    static final String RELEASE_NAMESPACE = ".Release.Namespace";
    /** No value: the chart passes the flag and its argument as they are. */
    static final String FIXED = "(fixed)";

    /** A component the chart runs {@code egpu} as, by the subcommand it runs. */
    enum Component {
        EXTENDER("scheduler"),
        CONTROLLER("controller"),
        NODE_AGENT("node-agent");

        final String command;

        Component(String command) {
            this.command = command;
        }
    }

    /**
     * @param value     the value's path in values.yaml, or {@link #RELEASE_NAMESPACE} or {@link #FIXED}
     * @param example   what the row sets it to (not its default, so that the argument shows it came through)
     * @param with      other values the flag is rendered only with
     * @param component whose arguments it reaches
     * @param flag      the flag
     * @param argument  the flag's argument as rendered; null for a switch
     */
    record Row(
            String value, String example, Map<String, String> with, Component component, String flag, String argument) {
        boolean isSwitch() {
            return argument == null;
        }

        @Override
        public String toString() {
            return "%s=%s%s -> %s %s%s"
                    .formatted(
                            value,
                            example,
                            with.isEmpty() ? "" : " " + with,
                            component.command,
                            flag,
                            argument == null ? "" : " " + argument);
        }
    }

    private static Row row(String value, String example, Component component, String flag, String argument) {
        return new Row(value, example, Map.of(), component, flag, argument);
    }

    private static Row row(
            String value, String example, Map<String, String> with, Component component, String flag, String argument) {
        return new Row(value, example, with, component, flag, argument);
    }

    private static final Map<String, String> MPS = Map.of("isolation", "mps");
    private static final Map<String, String> DRA = Map.of("nodeAgent.api", "dra");

    static final List<Row> ROWS = List.of(
            // the extender, beside kube-scheduler (egpu scheduler)
            row("extender.port", "18888", Component.EXTENDER, "--listen", "127.0.0.1:18888"),
            row("extender.metricsPort", "19402", Component.EXTENDER, "--metrics-listen", "0.0.0.0:19402"),
            row("policy", "binpack", Component.EXTENDER, "--policy", "binpack"),
            row("memoryBlockMib", "64", Component.EXTENDER, "--memory-block-mib", "64"),
            row("aliyunUnitMib", "512", Component.EXTENDER, "--aliyun-unit-mib", "512"),
            row(RELEASE_NAMESPACE, "egpu-test", Component.EXTENDER, "--ledger-namespace", "egpu-test"),
            row(
                    "gpuModels",
                    "name;aliases;fp32",
                    Component.EXTENDER,
                    "--model-table",
                    "/etc/elastic-gpu/models/gpu-models.csv"),
            // the controller, its webhook and dashboard (egpu controller)
            row(RELEASE_NAMESPACE, "egpu-test", Component.CONTROLLER, "--namespace-for-lease", "egpu-test"),
            row(FIXED, "", Component.CONTROLLER, "--webhook-service", "elastic-gpu-webhook"),
            row("controller.webhookPort", "19443", Component.CONTROLLER, "--webhook-listen", "0.0.0.0:19443"),
            row("controller.httpPort", "18080", Component.CONTROLLER, "--http-listen", "0.0.0.0:18080"),
            row("isolation", "mps", Component.CONTROLLER, "--isolation", "mps"),
            row("mps.contextReserveMib", "512", Component.CONTROLLER, "--mps-context-reserve-mib", "512"),
            row("memoryBlockMib", "64", Component.CONTROLLER, "--memory-block-mib", "64"),
            row("aliyunUnitMib", "512", Component.CONTROLLER, "--aliyun-unit-mib", "512"),
            row(
                    "gpuModels",
                    "name;aliases;fp32",
                    Component.CONTROLLER,
                    "--model-table",
                    "/etc/elastic-gpu/models/gpu-models.csv"),
            // the node agents (egpu node-agent)
            row("nodeAgent.api", "dra", Component.NODE_AGENT, "--api", "dra"),
            row("nodeAgent.backend", "simulated", Component.NODE_AGENT, "--backend", "simulated"),
            // nodeAgent.simulatedGpus is the file's content, in a ConfigMap mounted where the flag points
            row(
                    "nodeAgent.backend",
                    "simulated",
                    Component.NODE_AGENT,
                    "--simulated-gpus",
                    "/etc/elastic-gpu/gpus.yaml"),
            row("memoryBlockMib", "64", Component.NODE_AGENT, "--memory-block-mib", "64"),
            row("aliyunUnitMib", "512", Component.NODE_AGENT, "--aliyun-unit-mib", "512"),
            row("sharingMode", "replicas", Component.NODE_AGENT, "--mode", "replicas"),
            row("replicasPerCard", "8", Map.of("sharingMode", "replicas"), Component.NODE_AGENT, "--replicas", "8"),
            row("resourceNames.compatibility", "false", Component.NODE_AGENT, "--no-compatibility", null),
            row("isolation", "mps", Component.NODE_AGENT, "--isolation", "mps"),
            row("mps.contextReserveMib", "512", Component.NODE_AGENT, "--mps-context-reserve-mib", "512"),
            row("isolation", "mps", Component.NODE_AGENT, "--mps-host-namespaces", null),
            row("isolation", "mps", Component.NODE_AGENT, "--mps-cgroup-root", "/sys/fs/cgroup"),
            row("mps.root", "/run/egpu-mps", MPS, Component.NODE_AGENT, "--mps-root", "/run/egpu-mps"),
            row(
                    "mps.control",
                    "/opt/nvidia/mps-control",
                    MPS,
                    Component.NODE_AGENT,
                    "--mps-control",
                    "/opt/nvidia/mps-control"),
            row("mps.layout", "per-card", MPS, Component.NODE_AGENT, "--mps-layout", "per-card"),
            row("mps.shmMib", "128", MPS, Component.NODE_AGENT, "--mps-shm-mib", "128"),
            row("mps.nvidiaSmi", "/opt/nvidia/smi", MPS, Component.NODE_AGENT, "--nvidia-smi", "/opt/nvidia/smi"),
            row("nodeAgent.usage.enabled", "false", Component.NODE_AGENT, "--usage-interval", "PT0S"),
            row(
                    "nodeAgent.draConfig.pluginDir",
                    "/var/lib/k/plugins/egpu",
                    DRA,
                    Component.NODE_AGENT,
                    "--dra-plugin-dir",
                    "/var/lib/k/plugins/egpu"),
            row(
                    "nodeAgent.draConfig.registrationDir",
                    "/var/lib/k/registry",
                    DRA,
                    Component.NODE_AGENT,
                    "--plugin-registration-dir",
                    "/var/lib/k/registry"),
            row("nodeAgent.draConfig.cdiDir", "/etc/cdi", DRA, Component.NODE_AGENT, "--cdi-dir", "/etc/cdi"),
            row(
                    "nodeAgent.deviceConfig.devicePluginDir",
                    "/var/lib/k/device-plugins",
                    Component.NODE_AGENT,
                    "--device-plugin-dir",
                    "/var/lib/k/device-plugins"),
            row(
                    "nodeAgent.deviceConfig.podResourcesDir",
                    "/var/lib/k/pod-resources",
                    Component.NODE_AGENT,
                    "--pod-resources-socket",
                    "/var/lib/k/pod-resources/kubelet.sock"),
            row("nodeAgent.metricsPort", "19401", Component.NODE_AGENT, "--metrics-listen", "0.0.0.0:19401"));

    private ChartFlags() {}
}
