package io.elasticgpu.e2e.dra;

import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.health.HealthPolicy;
import java.nio.file.Path;
import java.time.Duration;

/** What the DRA tests start their node agents with: the chart's defaults, no device-plugin paths in use. */
final class DraAgents {

    private DraAgents() {}

    /** The agent of {@code node} in DRA mode; {@code dir} holds the device-plugin paths it leaves unused. */
    static AgentConfig config(String node, Path dir) {
        return AgentConfig.builder(node)
                .withPluginDir(dir.resolve("unused"))
                .withPodResourcesSocket(dir.resolve("unused.sock"))
                .withMemoryBlockMib(256)
                .withHealth(new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)))
                .build();
    }
}
