package io.elasticgpu.node.agent;

import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.usage.UsageChange;
import io.elasticgpu.node.usage.UsageMonitor;
import io.elasticgpu.node.usage.UsageWatch;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * Where the agent's usage samples go: every sample to the metrics; to the node's annotation when it changed
 * noticeably ({@link UsageChange}); a container over its grant to an event on its pod and the isolation counter.
 */
final class UsageReport implements UsageWatch.Sink {

    /** How a report posts an event: kind, namespace, name, reason, message. */
    interface Warn {
        void warn(String kind, String namespace, String name, String reason, String message);
    }

    private final AgentMetrics metrics;
    private final Consumer<NodeUsage> publish;
    private final Warn warn;
    private final InstantSource clock;
    private NodeUsage written;
    private Instant writtenAt = Instant.MIN;

    UsageReport(AgentMetrics metrics, Consumer<NodeUsage> publish, Warn warn, InstantSource clock) {
        this.metrics = metrics;
        this.publish = publish;
        this.warn = warn;
        this.clock = clock;
    }

    @Override
    public void measured(NodeUsage usage) {
        metrics.usage(usage);
        Instant now = clock.instant();
        Duration since = written == null ? UsageChange.REFRESH : Duration.between(writtenAt, now);
        if (UsageChange.worthWriting(written, usage, since)) {
            publish.accept(usage);
            written = usage;
            writtenAt = now;
        }
    }

    @Override
    public void exceeded(UsageMonitor.Exceeded over) {
        metrics.isolationEvent("GpuShareExceeded");
        warn.warn(
                "Pod",
                over.namespace(),
                over.pod(),
                "GpuShareExceeded",
                ("container %s holds %,d MiB on card %d, more than the %,d MiB it was granted; nothing on this node "
                                + "holds"
                                + " it to its share (isolation is off, or the process runs outside MPS)")
                        .formatted(over.container(), over.usedMib(), over.card(), over.grantedMib()));
    }
}
