package io.elasticgpu.node.agent;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.http.ListenAddress;
import io.elasticgpu.node.deviceplugin.AdvertisedResource;
import io.elasticgpu.node.deviceplugin.AdvertisedResource.Kind;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.isolation.IsolationConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How the node agent runs, made with {@link #builder}: the node's name, then any setting that is not its default.
 * Immutable; checked on construction, and a message names the flag, shows the value and says the fix.
 *
 * @param nodeName           this node's name in the cluster
 * @param pluginDir          kubelet's device-plugins directory (kubelet.sock and our sockets)
 * @param podResourcesSocket kubelet's pod-resources socket
 * @param mode               {@code SLICES} (with the extender) or {@code REPLICAS} (seed 000, no extender)
 * @param replicas           virtual devices per card in replicas mode
 * @param memoryBlockMib     MiB per device of {@code elasticgpu.io/gpu-memory}; must equal the extender's
 * @param aliyunUnitMib      MiB per unit of {@code aliyun.com/gpu-mem}
 * @param compatibility      also advertise NVIDIA's, Aliyun's and Volcano's resource names
 * @param isolation          what holds each share to its limits (nothing, or an MPS daemon per share)
 * @param health             which events take a card out of service and when it comes back
 * @param usageEvery         how often what processes use on the cards is measured (NVML only); zero: never
 * @param api                how kubelet is offered the cards ({@code --api}); {@link NodeAgentService} starts the agent
 *                           of that API
 * @param dra                where the DRA driver keeps its sockets and files, with {@link Api#DRA}
 * @param metricsListen      where {@link NodeAgentService} serves {@code /metrics} and {@code /healthz}; empty for
 * nowhere
 *                           (the builder's default; {@code egpu node-agent}'s is {@value #DEFAULT_METRICS_LISTEN})
 */
public record AgentConfig(
        String nodeName,
        Path pluginDir,
        Path podResourcesSocket,
        Mode mode,
        int replicas,
        long memoryBlockMib,
        long aliyunUnitMib,
        boolean compatibility,
        IsolationConfig isolation,
        HealthPolicy health,
        Duration usageEvery,
        Api api,
        DraConfig dra,
        Optional<ListenAddress> metricsListen) {

    public static final Duration DEFAULT_USAGE_EVERY = Duration.ofSeconds(10);
    /** Where {@code egpu node-agent} serves {@code /metrics} and {@code /healthz} unless told otherwise. */
    public static final String DEFAULT_METRICS_LISTEN = "0.0.0.0:9401";

    public static final Path DEFAULT_PLUGIN_DIR = Path.of("/var/lib/kubelet/device-plugins");
    public static final Path DEFAULT_POD_RESOURCES = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    /** How cards are shared ({@code --mode}). */
    public enum Mode {
        /** Memory and compute slices, placed by the extender. */
        SLICES,
        /** Each card as a number of virtual devices (seed 000), no extender. */
        REPLICAS;

        /**
         * {@code slices} or {@code replicas}, as {@code --mode} is written.
         *
         * @throws IllegalArgumentException naming the flag and the value for anything else
         */
        public static Mode parse(String flag) {
            return switch (flag) {
                case "slices" -> SLICES;
                case "replicas" -> REPLICAS;
                default -> throw new IllegalArgumentException("--mode must be slices or replicas, was " + flag);
            };
        }
    }

    /** How kubelet is offered the cards: one API per node, the other is not started. */
    public enum Api {
        /** Extended resources through kubelet's device plugin API ({@code --api device-plugin}). */
        DEVICE_PLUGIN,
        /** A ResourceSlice and kubelet's DRA API ({@code --api dra}). */
        DRA,
        /**
         * No kubelet to offer them to, as on the local cluster's fake nodes: the agent publishes the node's inventory
         * and keeps its cards' health, and serves no kubelet API. Not a value of {@code --api}.
         */
        NONE;

        /**
         * {@code device-plugin} or {@code dra}, as {@code --api} is written.
         *
         * @throws IllegalArgumentException naming the flag and the value for anything else
         */
        public static Api parse(String flag) {
            return switch (flag) {
                case "device-plugin" -> DEVICE_PLUGIN;
                case "dra" -> DRA;
                default -> throw new IllegalArgumentException("--api must be device-plugin or dra, was " + flag);
            };
        }
    }

    /**
     * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix
     */
    public AgentConfig {
        requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) {
            throw new IllegalArgumentException(
                    "node agent: the node name is empty; pass --node-name or set NODE_NAME (the DaemonSet sets it "
                            + "from spec.nodeName)");
        }
        requireNonNull(pluginDir, "pluginDir");
        requireNonNull(podResourcesSocket, "podResourcesSocket");
        requireNonNull(mode, "mode");
        requireNonNull(isolation, "isolation");
        requireNonNull(health, "health");
        requireNonNull(usageEvery, "usageEvery");
        requireNonNull(api, "api");
        requireNonNull(dra, "dra");
        requireNonNull(metricsListen, "metricsListen");
        if (usageEvery.isNegative() || (!usageEvery.isZero() && usageEvery.toMillis() < 100)) {
            throw new IllegalArgumentException("node agent: --usage-interval must be 0 (off) or at least 100 ms, was "
                    + usageEvery + "; e.g. PT10S, or PT0S to measure nothing");
        }
        if (replicas < 1 || replicas > 1000) {
            throw new IllegalArgumentException(
                    "node agent: --replicas must be 1..1000, was " + replicas + "; e.g. 4 virtual devices per card");
        }
        if (memoryBlockMib < 1) {
            throw new IllegalArgumentException("node agent: --memory-block-mib must be >= 1, was " + memoryBlockMib
                    + "; give the extender's memoryBlockMib (default 1)");
        }
        if (aliyunUnitMib < 1) {
            throw new IllegalArgumentException("node agent: --aliyun-unit-mib must be >= 1, was " + aliyunUnitMib
                    + "; give the extender's aliyunUnitMib (default 1024, Aliyun's GiB)");
        }
        if (isolation.mode() == IsolationConfig.Mode.MPS && mode == Mode.REPLICAS && api == Api.DEVICE_PLUGIN) {
            throw new IllegalArgumentException(
                    "node agent: --isolation mps holds slices to their shares; it needs --mode"
                            + " slices (replicas have no share to hold)");
        }
    }

    /** The agent of node {@code nodeName}, every other setting at its default until changed. */
    public static Builder builder(String nodeName) {
        return new Builder(nodeName);
    }

    /** A builder holding this configuration, to change some settings of it. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    public PodAsks.Units units() {
        return new PodAsks.Units(
                memoryBlockMib,
                aliyunUnitMib,
                ResourceNames.GPU,
                ResourceNames.GPU_MEMORY,
                ResourceNames.GPU_CORE,
                ResourceNames.GPU_COUNT);
    }

    /** What to advertise: Elastic GPU's names, then the compatibility names if enabled. */
    public List<AdvertisedResource> resources() {
        List<AdvertisedResource> out = new ArrayList<>();
        if (mode == Mode.REPLICAS) {
            out.add(new AdvertisedResource(ResourceNames.GPU, Kind.REPLICA, replicas));
            if (compatibility) {
                out.add(new AdvertisedResource(ResourceNames.NVIDIA_GPU, Kind.REPLICA, replicas));
            }
            return out;
        }
        out.add(new AdvertisedResource(ResourceNames.GPU, Kind.WHOLE, 0));
        out.add(new AdvertisedResource(ResourceNames.GPU_MEMORY, Kind.MEMORY, memoryBlockMib));
        out.add(new AdvertisedResource(ResourceNames.GPU_CORE, Kind.PERCENT, 100));
        out.add(new AdvertisedResource(ResourceNames.GPU_COUNT, Kind.COUNT, 100));
        if (compatibility) {
            // Not one device per card: HAMi's pods share a card through nvidia.com/gpu, so kubelet must let several
            // containers hold devices of one card (the plans, checked against usage, keep whole cards whole).
            out.add(new AdvertisedResource(ResourceNames.NVIDIA_GPU, Kind.SHARE, 100));
            out.add(new AdvertisedResource(ResourceNames.ALIYUN_GPU_MEM, Kind.MEMORY, aliyunUnitMib));
            out.add(new AdvertisedResource(ResourceNames.VOLCANO_GPU_MEMORY, Kind.MEMORY, 1));
            out.add(new AdvertisedResource(ResourceNames.VOLCANO_GPU_NUMBER, Kind.WHOLE, 0));
        }
        return out;
    }

    /** Every setting but the node's name at its default until changed; {@link #build} checks them. Not thread-safe. */
    public static final class Builder {
        private final String nodeName;
        private Path pluginDir = DEFAULT_PLUGIN_DIR;
        private Path podResourcesSocket = DEFAULT_POD_RESOURCES;
        private Mode mode = Mode.SLICES;
        private int replicas = 4;
        private long memoryBlockMib = PodAsks.Units.DEFAULT.memoryBlockMib();
        private long aliyunUnitMib = PodAsks.Units.DEFAULT.aliyunUnitMib();
        private boolean compatibility = true;
        private IsolationConfig isolation = IsolationConfig.NONE;
        private HealthPolicy health = HealthPolicy.DEFAULT;
        private Duration usageEvery = DEFAULT_USAGE_EVERY;
        private Api api = Api.DEVICE_PLUGIN;
        private DraConfig dra = DraConfig.DEFAULT;
        private Optional<ListenAddress> metricsListen = Optional.empty();

        private Builder(String nodeName) {
            this.nodeName = nodeName;
        }

        private Builder(AgentConfig c) {
            this(c.nodeName);
            pluginDir = c.pluginDir;
            podResourcesSocket = c.podResourcesSocket;
            mode = c.mode;
            replicas = c.replicas;
            memoryBlockMib = c.memoryBlockMib;
            aliyunUnitMib = c.aliyunUnitMib;
            compatibility = c.compatibility;
            isolation = c.isolation;
            health = c.health;
            usageEvery = c.usageEvery;
            api = c.api;
            dra = c.dra;
            metricsListen = c.metricsListen;
        }

        /** kubelet's device-plugins directory ({@code --device-plugin-dir}). */
        public Builder withPluginDir(Path dir) {
            pluginDir = dir;
            return this;
        }

        /** kubelet's pod-resources socket ({@code --pod-resources-socket}). */
        public Builder withPodResourcesSocket(Path socket) {
            podResourcesSocket = socket;
            return this;
        }

        public Builder withMode(Mode sharing) {
            mode = sharing;
            return this;
        }

        /** Virtual devices per card in {@link Mode#REPLICAS} ({@code --replicas}). */
        public Builder withReplicas(int perCard) {
            replicas = perCard;
            return this;
        }

        public Builder withMemoryBlockMib(long mib) {
            memoryBlockMib = mib;
            return this;
        }

        public Builder withAliyunUnitMib(long mib) {
            aliyunUnitMib = mib;
            return this;
        }

        /**
         * Whether to advertise NVIDIA's, Aliyun's and Volcano's resource names too ({@code --no-compatibility}: false).
         * */
        public Builder withCompatibility(boolean advertise) {
            compatibility = advertise;
            return this;
        }

        public Builder withIsolation(IsolationConfig holding) {
            isolation = holding;
            return this;
        }

        public Builder withHealth(HealthPolicy policy) {
            health = policy;
            return this;
        }

        /** How often what processes use is measured ({@code --usage-interval}); zero: never. */
        public Builder withUsageEvery(Duration every) {
            usageEvery = every;
            return this;
        }

        /** How kubelet is offered the cards ({@code --api}). */
        public Builder withApi(Api offered) {
            api = offered;
            return this;
        }

        /** Where the DRA driver keeps its sockets and files ({@code --dra-plugin-dir}, …), with {@link Api#DRA}. */
        public Builder withDra(DraConfig paths) {
            dra = paths;
            return this;
        }

        /** Where to serve {@code /metrics} and {@code /healthz} ({@code --metrics-listen}); empty for nowhere. */
        public Builder withMetricsListen(Optional<ListenAddress> address) {
            metricsListen = address;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix */
        public AgentConfig build() {
            return new AgentConfig(
                    nodeName,
                    pluginDir,
                    podResourcesSocket,
                    mode,
                    replicas,
                    memoryBlockMib,
                    aliyunUnitMib,
                    compatibility,
                    isolation,
                    health,
                    usageEvery,
                    api,
                    dra,
                    metricsListen);
        }
    }
}
