package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.PodGpuRequests;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.node.deviceplugin.AdvertisedResource;
import io.elasticgpu.node.deviceplugin.AdvertisedResource.Kind;
import io.elasticgpu.node.health.HealthPolicy;
import io.elasticgpu.node.isolation.IsolationConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How the node agent runs. Immutable; validated on construction with messages that name the setting.
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
 */
public record AgentConfig(String nodeName, Path pluginDir, Path podResourcesSocket, Mode mode, int replicas,
                          long memoryBlockMib, long aliyunUnitMib, boolean compatibility, IsolationConfig isolation,
                          HealthPolicy health, Duration usageEvery) {

    /** Measuring usage every {@link #DEFAULT_USAGE_EVERY}. */
    public AgentConfig(String nodeName, Path pluginDir, Path podResourcesSocket, Mode mode, int replicas,
                       long memoryBlockMib, long aliyunUnitMib, boolean compatibility, IsolationConfig isolation,
                       HealthPolicy health) {
        this(nodeName, pluginDir, podResourcesSocket, mode, replicas, memoryBlockMib, aliyunUnitMib, compatibility,
                isolation, health, DEFAULT_USAGE_EVERY);
    }

    public static final Duration DEFAULT_USAGE_EVERY = Duration.ofSeconds(10);

    /** How cards are shared. */
    public enum Mode {
        SLICES, REPLICAS
    }

    public static final Path DEFAULT_PLUGIN_DIR = Path.of("/var/lib/kubelet/device-plugins");
    public static final Path DEFAULT_POD_RESOURCES = Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    public AgentConfig {
        requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) {
            throw new IllegalArgumentException("node agent: the node name is empty; pass --node-name or set NODE_NAME (the DaemonSet sets it from spec.nodeName)");
        }
        requireNonNull(pluginDir, "pluginDir");
        requireNonNull(podResourcesSocket, "podResourcesSocket");
        requireNonNull(mode, "mode");
        requireNonNull(isolation, "isolation");
        requireNonNull(health, "health");
        requireNonNull(usageEvery, "usageEvery");
        if (usageEvery.isNegative() || (!usageEvery.isZero() && usageEvery.toMillis() < 100)) {
            throw new IllegalArgumentException("node agent: --usage-interval must be 0 (off) or at least 100 ms, was " + usageEvery);
        }
        if (replicas < 1 || replicas > 1000) {
            throw new IllegalArgumentException("node agent: replicas must be 1..1000, was " + replicas);
        }
        if (memoryBlockMib < 1 || aliyunUnitMib < 1) {
            throw new IllegalArgumentException("node agent: memory block and Aliyun unit must be >= 1 MiB, were %d and %d"
                    .formatted(memoryBlockMib, aliyunUnitMib));
        }
    }

    public static AgentConfig defaults(String nodeName) {
        return new AgentConfig(nodeName, DEFAULT_PLUGIN_DIR, DEFAULT_POD_RESOURCES, Mode.SLICES, 4, 1, 1024, true,
                IsolationConfig.NONE, HealthPolicy.DEFAULT);
    }

    public AgentConfig withPluginDir(Path dir, Path podResources) {
        return new AgentConfig(nodeName, dir, podResources, mode, replicas, memoryBlockMib, aliyunUnitMib, compatibility,
                isolation, health, usageEvery);
    }

    public AgentConfig withMode(Mode newMode, int newReplicas) {
        return new AgentConfig(nodeName, pluginDir, podResourcesSocket, newMode, newReplicas, memoryBlockMib, aliyunUnitMib,
                compatibility, isolation, health, usageEvery);
    }

    public AgentConfig withHealth(HealthPolicy policy) {
        return new AgentConfig(nodeName, pluginDir, podResourcesSocket, mode, replicas, memoryBlockMib, aliyunUnitMib,
                compatibility, isolation, policy, usageEvery);
    }

    public AgentConfig withIsolation(IsolationConfig newIsolation) {
        return new AgentConfig(nodeName, pluginDir, podResourcesSocket, mode, replicas, memoryBlockMib, aliyunUnitMib,
                compatibility, newIsolation, health, usageEvery);
    }

    public PodGpuRequests.Units units() {
        return new PodGpuRequests.Units(memoryBlockMib, aliyunUnitMib, ResourceNames.GPU, ResourceNames.GPU_MEMORY,
                ResourceNames.GPU_CORE, ResourceNames.GPU_COUNT);
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
}
