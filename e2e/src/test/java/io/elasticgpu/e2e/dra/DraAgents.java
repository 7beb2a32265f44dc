package io.elasticgpu.e2e.dra;

import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.isolation.IsolationConfig;
import io.elasticgpu.node.health.HealthPolicy;

import java.nio.file.Path;
import java.time.Duration;

/** What the DRA tests start their node agents with: the chart's defaults, no device-plugin paths in use. */
final class DraAgents {

    private DraAgents() {
    }

    /** The agent of {@code node} in DRA mode; {@code dir} holds the device-plugin paths it leaves unused. */
    static AgentConfig config(String node, Path dir) {
        return new AgentConfig(node, dir.resolve("unused"), dir.resolve("unused.sock"), AgentConfig.Mode.SLICES, 4, 256, 1024,
                true, IsolationConfig.NONE, new HealthPolicy(HealthPolicy.APPLICATION_XIDS, Duration.ofMinutes(5)));
    }
}
