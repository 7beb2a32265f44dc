package io.elasticgpu.node.agent;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * Where the DRA driver keeps its sockets and files; the rest of its settings are the agent's ({@link AgentConfig}).
 *
 * @param pluginDir       the driver's own directory: its DRA socket and the prepared-claims checkpoint
 * @param registrationDir kubelet's plugin registration directory, watched by kubelet's plugin manager
 * @param cdiDir          the directory the container runtime reads CDI specs from
 */
public record DraConfig(Path pluginDir, Path registrationDir, Path cdiDir) {

    public static final DraConfig DEFAULT = new DraConfig(
            Path.of("/var/lib/kubelet/plugins/gpu.elasticgpu.io"),
            Path.of("/var/lib/kubelet/plugins_registry"),
            Path.of("/var/run/cdi"));

    public DraConfig {
        requireNonNull(pluginDir, "pluginDir");
        requireNonNull(registrationDir, "registrationDir");
        requireNonNull(cdiDir, "cdiDir");
    }

    public Path checkpoint() {
        return pluginDir.resolve("checkpoint.json");
    }
}
