package io.elasticgpu.cli;

import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-listen}: where a component serves {@code /metrics} and its probes apart from anything else
 * ({@code @Mixin}). Its default is the command's: the node agent's {@value #NODE_AGENT_DEFAULT}, the scheduler's none.
 */
final class MetricsListenOption {

    /** The node agent's default. */
    static final String NODE_AGENT_DEFAULT = io.elasticgpu.node.agent.AgentConfig.DEFAULT_METRICS_LISTEN;
    /** The value that serves no metrics. */
    static final String OFF = io.elasticgpu.http.ListenAddress.OFF;

    @Option(
            names = "--metrics-listen",
            paramLabel = "HOST:PORT|off",
            description = "Where to serve /metrics (Prometheus) and the probes (/healthz, and the scheduler's /readyz),"
                    + " and nothing else; off serves them nowhere. The node agent's default " + NODE_AGENT_DEFAULT
                    + "; the scheduler's none, or its configuration file's metricsListen.")
    String value;

    /** What was given, {@code off} included; empty when the flag was not. */
    Optional<String> given() {
        return Optional.ofNullable(value);
    }
}
