package io.elasticgpu.cli;

import io.elasticgpu.http.ListenAddress;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.DraConfig;
import io.elasticgpu.node.agent.NodeAgentService;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.NvmlBackend;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "node-agent",
        mixinStandardHelpOptions = true,
        description = {
            "Run the node agent: discover the node's GPUs, publish them, and serve kubelet's device plugin API (or, "
                    + "with --api dra, its DRA API).",
            "Runs on every GPU node (a DaemonSet) with kubelet's device-plugins and pod-resources directories mounted."
        })
final class NodeAgentCommand implements Callable<Integer> {

    @Mixin
    ConfigOption config;

    @Option(
            names = "--node-name",
            paramLabel = "NAME",
            defaultValue = "${env:NODE_NAME}",
            description = "This node's name (default: $NODE_NAME).")
    String nodeName;

    @Mixin
    KubeconfigOption kubeconfig;

    @Option(
            names = "--backend",
            paramLabel = "nvml|simulated",
            defaultValue = "nvml",
            description = "Where GPUs come from (default nvml).")
    String backend;

    @Option(
            names = "--simulated-gpus",
            paramLabel = "YAML",
            description = "With --backend simulated: the cards and links.")
    Path simulated;

    @Option(
            names = "--nvml-library",
            paramLabel = "FILE",
            description = "libnvidia-ml.so.1 to use (default: searched).")
    Path nvmlLibrary;

    @Option(
            names = "--device-plugin-dir",
            paramLabel = "DIR",
            description = "kubelet's device-plugins directory (default /var/lib/kubelet/device-plugins).")
    Path pluginDir = AgentConfig.DEFAULT_PLUGIN_DIR;

    @Option(
            names = "--pod-resources-socket",
            paramLabel = "FILE",
            description = "kubelet's pod-resources socket (default /var/lib/kubelet/pod-resources/kubelet.sock).")
    Path podResources = AgentConfig.DEFAULT_POD_RESOURCES;

    @Option(
            names = "--api",
            paramLabel = "device-plugin|dra",
            defaultValue = "device-plugin",
            description = "How kubelet is offered the cards: device-plugin (extended resources, default) or dra (a "
                    + "ResourceSlice"
                    + " and kubelet's DRA API). One per node: the other is not started, and the node is "
                    + "labelled elasticgpu.io/gpu.api.")
    String api;

    @Option(
            names = "--dra-plugin-dir",
            paramLabel = "DIR",
            description = "With --api dra: the driver's socket and checkpoint directory (default "
                    + "/var/lib/kubelet/plugins/gpu.elasticgpu.io).")
    Path draPluginDir = DraConfig.DEFAULT.pluginDir();

    @Option(
            names = "--plugin-registration-dir",
            paramLabel = "DIR",
            description = "With --api dra: kubelet's plugin registration directory (default "
                    + "/var/lib/kubelet/plugins_registry).")
    Path registrationDir = DraConfig.DEFAULT.registrationDir();

    @Option(
            names = "--cdi-dir",
            paramLabel = "DIR",
            description =
                    "With --api dra: where CDI specs are written for the container runtime (default /var/run/cdi).")
    Path cdiDir = DraConfig.DEFAULT.cdiDir();

    @Option(
            names = "--mode",
            paramLabel = "slices|replicas",
            defaultValue = "slices",
            description = "slices: with the extender (default); replicas: each card as --replicas virtual devices, no "
                    + "extender.")
    String mode;

    @Option(
            names = "--replicas",
            paramLabel = "N",
            defaultValue = "4",
            description = "Virtual devices per card in replicas mode (default 4).")
    int replicas;

    @Mixin
    UnitOptions units;

    @Option(names = "--no-compatibility", description = "Do not advertise nvidia.com, aliyun.com and volcano.sh names.")
    boolean noCompatibility;

    @Mixin
    IsolationOption isolation;

    @Option(
            names = "--mps-control",
            paramLabel = "FILE",
            defaultValue = "/usr/bin/nvidia-cuda-mps-control",
            description = "With --isolation mps: NVIDIA's nvidia-cuda-mps-control, as the launch sees it (default "
                    + "${DEFAULT-VALUE}).")
    Path mpsControl;

    @Option(
            names = "--mps-root",
            paramLabel = "DIR",
            defaultValue = "/run/elastic-gpu/mps",
            description =
                    "With --isolation mps: the host directory of the shares' pipe, shared-memory and log directories"
                            + " (default ${DEFAULT-VALUE}; on a tmpfs, since shared memory lives there).")
    Path mpsRoot;

    @Option(
            names = "--mps-host-namespaces",
            description =
                    "With --isolation mps: launch the daemons in the host's mount and cgroup namespaces (nsenter into"
                            + " process 1), for an agent in a container: the daemons then outlive the agent's "
                            + "container.")
    boolean mpsHostNamespaces;

    @Option(
            names = "--mps-cgroup-root",
            paramLabel = "DIR",
            defaultValue = "",
            description = "With --isolation mps: where the cgroup hierarchies are mounted as the launch sees them"
                    + " (e.g. /sys/fs/cgroup), to move each daemon into an elasticgpu-mps cgroup of its own; empty "
                    + "leaves"
                    + " the daemons in the agent's cgroup (default).")
    String mpsCgroupRoot;

    @Option(
            names = "--mps-layout",
            paramLabel = "auto|per-share|per-card|v3",
            defaultValue = "auto",
            description = "With --isolation mps: how MPS servers are laid out: per-share (a control daemon per share,"
                    + " limits the pod cannot raise, the card time-sliced between shares), per-card (a daemon per card,"
                    + " shares side by side, limits in the container's environment, which the pod can raise), v3 (MPS"
                    + " v3: a server per card, a namespace per share, memory also held by the pod's cgroup where the"
                    + " kernel has dmem), or auto (v3 where the control program offers it, else per-share; default).")
    String mpsLayout;

    @Option(
            names = "--mps-context-reserve-mib",
            paramLabel = "MIB",
            defaultValue = "1024",
            description = "With --isolation mps: MiB of each process's share kept out of its MPS memory limit for its"
                    + " CUDA context, which MPS does not count (default ${DEFAULT-VALUE}); give the controller the"
                    + " same.")
    long mpsContextReserveMib;

    @Option(
            names = "--mps-shm-mib",
            paramLabel = "MIB",
            defaultValue = "64",
            description = "With --isolation mps: the size of the tmpfs each share gets as /dev/shm when its pod brings"
                    + " no /dev/shm volume of its own (default ${DEFAULT-VALUE}).")
    long mpsShmMib;

    @Option(
            names = "--nvidia-smi",
            paramLabel = "FILE",
            defaultValue = "/usr/bin/nvidia-smi",
            description = "With --isolation mps and the v3 layout: NVIDIA's nvidia-smi, which sets each pod's memory"
                    + " limit on its cgroup (default ${DEFAULT-VALUE}).")
    Path nvidiaSmi;

    @Option(
            names = "--usage-interval",
            paramLabel = "DURATION",
            defaultValue = "PT10S",
            description =
                    "How often what each container's processes use on the cards is measured through NVML (memory, SM"
                            + " utilization), exported as metrics and in the node's elasticgpu.io/usage annotation "
                            + "(ISO-8601,"
                            + " default PT10S; PT0S: never). Attributing a process to its pod needs the host's pid "
                            + "namespace.")
    Duration usageInterval;

    @Option(
            names = "--health-quiet-period",
            paramLabel = "DURATION",
            defaultValue = "PT5M",
            description =
                    "How long an unhealthy card must stay quiet, and answer NVML, to return (ISO-8601, default PT5M).")
    Duration quietPeriod;

    @Option(
            names = "--ignored-xids",
            paramLabel = "XID",
            split = ",",
            defaultValue = "13,31,43,45,68,109",
            description =
                    "Xids that do not take a card out of service (default: application errors 13,31,43,45,68,109).")
    List<Long> ignoredXids;

    @Mixin
    MetricsListenOption metricsListen;

    @Mixin
    LoggingOptions logging;

    /** The flags as the agent's configuration; a bad value stops here, before anything starts. */
    AgentConfig config() {
        Optional<ListenAddress> metrics = ListenAddress.parseOrOff(
                "metricsListen (--metrics-listen)",
                metricsListen.given().orElse(MetricsListenOption.NODE_AGENT_DEFAULT));
        AgentConfig.Mode sharing = AgentConfig.Mode.parse(mode);
        AgentConfig.Api offered = AgentConfig.Api.parse(api);
        return AgentConfig.builder(nodeName == null ? "" : nodeName)
                .withApi(offered)
                .withMetricsListen(metrics)
                .withPluginDir(pluginDir)
                .withPodResourcesSocket(podResources)
                .withDra(new DraConfig(draPluginDir, registrationDir, cdiDir))
                .withMode(sharing)
                .withReplicas(replicas)
                .withMemoryBlockMib(units.memoryBlockMib)
                .withAliyunUnitMib(units.aliyunUnitMib)
                .withCompatibility(!noCompatibility)
                .withIsolation(isolationConfig())
                .withHealth(new HealthPolicy(new HashSet<>(ignoredXids), quietPeriod))
                .withUsageEvery(usageInterval)
                .build();
    }

    IsolationConfig isolationConfig() {
        if (isolation.forNodeAgent() == IsolationConfig.Mode.NONE) {
            return IsolationConfig.NONE;
        }
        return IsolationConfig.mps(mpsControl, mpsRoot)
                .withHost(mpsHostNamespaces, mpsCgroupRoot)
                .withLayout(IsolationConfig.Layout.of(mpsLayout))
                .withMemory(mpsContextReserveMib, mpsShmMib)
                .withNvidiaSmi(nvidiaSmi);
    }

    /** Whether to run as a DRA driver; anything but the two names stops before anything starts. */
    boolean dra() {
        return AgentConfig.Api.parse(api) == AgentConfig.Api.DRA;
    }

    GpuBackend openBackend() {
        return switch (backend) {
            case "nvml" -> nvmlLibrary == null ? NvmlBackend.open() : NvmlBackend.open(nvmlLibrary);
            case "simulated" -> {
                if (simulated == null) {
                    throw new IllegalArgumentException(
                            "--backend simulated needs --simulated-gpus FILE (a YAML list of cards and links)");
                }
                yield SimulatedBackend.load(simulated, nodeName);
            }
            default -> throw new IllegalArgumentException("--backend must be nvml or simulated, was " + backend);
        };
    }

    @Override
    public Integer call() throws InterruptedException {
        logging.apply();
        AgentConfig c = config();
        GpuBackend gpus = openBackend();
        KubernetesClient client = kubeconfig.client();
        NodeAgentService agent;
        try {
            agent = NodeAgentService.start(client, c, gpus);
        } catch (RuntimeException e) {
            gpus.close();
            client.close();
            throw e;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            agent.close(); // first the agent, which removes the plugin sockets so that kubelet stops
                            // offering our devices
                            gpus.close();
                            client.close();
                            stop.countDown();
                        },
                        "node-agent-shutdown"));
        stop.await();
        return 0;
    }
}
