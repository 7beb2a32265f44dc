package io.elasticgpu.node.agent;

import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.isolation.MpsWatchdog;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.usage.PodView;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * What isolation tells the cluster: a Warning event on the share's holder (a pod in device-plugin mode, a
 * ResourceClaim in DRA mode) or on the pod whose process went around MPS, and the isolation counter by reason.
 */
final class IsolationNotices implements MpsIsolation.Notices {

    private final AgentMetrics metrics;
    private final UsageReport.Warn warn;
    private final boolean claims;
    private final Supplier<Collection<PodView>> pods;

    /** @param claims whether shares are held by claims ({@code namespace/claim}) rather than containers */
    IsolationNotices(AgentMetrics metrics, UsageReport.Warn warn, boolean claims, Supplier<Collection<PodView>> pods) {
        this.metrics = metrics;
        this.warn = warn;
        this.claims = claims;
        this.pods = pods;
    }

    @Override
    public void warn(MpsShare share, String reason, String message) {
        metrics.isolationEvent(reason);
        String[] holder = share.holder().split("/", 3);
        if (claims) {
            warn.warn("ResourceClaim", holder[0], holder[1], reason, message);
        } else {
            warn.warn("Pod", holder[0], holder[1], reason, "container %s: %s".formatted(holder[2], message));
        }
    }

    @Override
    public void bypassed(MpsWatchdog.Bypass bypass) {
        metrics.isolationEvent("GpuShareBypassed");
        bypass.owner()
                .flatMap(o -> pods.get().stream()
                        .filter(p -> p.uid().equals(o.podUid()))
                        .findFirst())
                .ifPresent(p -> warn.warn(
                        "Pod",
                        p.namespace(),
                        p.name(),
                        "GpuShareBypassed",
                        ("process %d used card %d outside MPS"
                                        + " (its CUDA_MPS_PIPE_DIRECTORY led to no daemon of its share), where "
                                        + "nothing would hold it to"
                                        + " its share: %s")
                                .formatted(bypass.pid(), bypass.card(), bypass.how())));
    }
}
