package io.elasticgpu.node.agent;

import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.isolation.MpsShare;
import io.elasticgpu.node.isolation.MpsWatchdog;
import io.elasticgpu.node.metrics.AgentMetrics;
import io.elasticgpu.node.usage.PodView;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What isolation tells the cluster: a Warning event on the share's holder (a pod in device-plugin mode, a
 * ResourceClaim in DRA mode) or on the pod whose process went around MPS, and the isolation counter by reason.
 *
 * <p>A pod whose processes go around MPS again after one was caught is evicted: the second time one of its processes
 * is caught ({@link #EVICT_AT}), through the Eviction API (so its PodDisruptionBudgets are honoured), with a
 * {@value #EVICTED} event that says why; its card keeps serving the other pods. A refused eviction (a budget's HTTP
 * 429, or any error) is logged and told as {@value #REFUSED}; the pod's processes are still ended each time one is
 * caught, and the eviction is asked again at the next catch. Every catch of a pod's process counts, ended or not (one
 * the agent cannot see to end runs on until the eviction ends it); a host process is only reported, never counted. A
 * pod's count is forgotten once the pod is gone from the node. The counts are in memory only: a restarted agent
 * starts every pod at zero, so a pod caught once before a restart is evicted at its second catch after it.
 *
 * <p>Called from the isolation loop's one thread; an eviction is one API call made on it.
 */
final class IsolationNotices implements MpsIsolation.Notices {

    static final String BYPASSED = "GpuShareBypassed";
    static final String EVICTED = "GpuShareBypassEvicted";
    static final String REFUSED = "GpuShareBypassEvictionRefused";
    /** The catch at which a pod is evicted: its second, after one process of it was ended already. */
    static final int EVICT_AT = 2;
    /** What an evicted pod must change, in its events. */
    static final String FIX =
            "Leave CUDA_MPS_PIPE_DIRECTORY as the node agent set it, in every container and process of the pod.";

    /** Evicts a pod of this node ({@link Cluster#evict}, {@link DraCluster#evict}). */
    interface Evict {
        PodEviction evict(String namespace, String name, String uid);
    }

    private static final Logger LOG = LoggerFactory.getLogger(IsolationNotices.class);

    private final AgentMetrics metrics;
    private final UsageReport.Warn warn;
    private final Evict evict;
    private final boolean claims;
    private final Supplier<Collection<PodView>> pods;
    private final Map<String, Integer> caught = new HashMap<>(); // pod uid -> its processes caught around MPS
    private final Set<String> evicted = new HashSet<>(); // pod uids the API server accepted to evict

    /** @param claims whether shares are held by claims ({@code namespace/claim}) rather than containers */
    IsolationNotices(
            AgentMetrics metrics,
            UsageReport.Warn warn,
            Evict evict,
            boolean claims,
            Supplier<Collection<PodView>> pods) {
        this.metrics = metrics;
        this.warn = warn;
        this.evict = evict;
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
    public synchronized void bypassed(MpsWatchdog.Bypass bypass) {
        metrics.isolationEvent(BYPASSED);
        Map<String, PodView> onNode = pods.get().stream().collect(Collectors.toMap(PodView::uid, p -> p, (a, b) -> a));
        caught.keySet().retainAll(onNode.keySet());
        evicted.retainAll(onNode.keySet());
        PodView pod = bypass.owner().map(o -> onNode.get(o.podUid())).orElse(null);
        if (pod == null) {
            return; // a host process (the watchdog logged it), or a pod not yet seen on the node: nothing to count
        }
        warn.warn(
                "Pod",
                pod.namespace(),
                pod.name(),
                BYPASSED,
                ("process %d used card %d outside MPS (its CUDA_MPS_PIPE_DIRECTORY led to no daemon of its share), "
                                + "where nothing would hold it to its share: %s")
                        .formatted(bypass.pid(), bypass.card(), bypass.how()));
        int times = caught.merge(pod.uid(), 1, Integer::sum);
        if (times >= EVICT_AT && !evicted.contains(pod.uid())) {
            evict(pod, bypass, times);
        }
    }

    private void evict(PodView pod, MpsWatchdog.Bypass bypass, int times) {
        String what = "process %d used card %d outside MPS (%s), the %s time this pod went around MPS"
                .formatted(bypass.pid(), bypass.card(), bypass.how(), ordinal(times));
        switch (evict.evict(pod.namespace(), pod.name(), pod.uid())) {
            case PodEviction.Evicted e -> {
                evicted.add(pod.uid());
                metrics.isolationEvent(EVICTED);
                LOG.warn("evicted pod {}/{}: {}", pod.namespace(), pod.name(), what);
                warn.warn(
                        "Pod",
                        pod.namespace(),
                        pod.name(),
                        EVICTED,
                        ("evicted by the node agent: %s, where nothing holds it to its share; the card goes on serving"
                                        + " its other pods. %s")
                                .formatted(what, FIX));
            }
            case PodEviction.Refused r -> {
                metrics.isolationEvent(REFUSED);
                LOG.warn("cannot evict pod {}/{} ({}): {}", pod.namespace(), pod.name(), what, r.why());
                warn.warn(
                        "Pod",
                        pod.namespace(),
                        pod.name(),
                        REFUSED,
                        ("the node agent could not evict the pod after %s: %s. It goes on ending the pod's processes"
                                        + " outside MPS and asks the eviction again when it next catches one. %s")
                                .formatted(what, r.why(), FIX));
            }
        }
    }

    /** The pods counted now, by uid: how many times each had a process caught around MPS. */
    synchronized Map<String, Integer> caught() {
        return Map.copyOf(caught);
    }

    private static String ordinal(int n) {
        return switch (n % 100 >= 11 && n % 100 <= 13 ? 0 : n % 10) {
            case 1 -> n + "st";
            case 2 -> n + "nd";
            case 3 -> n + "rd";
            default -> n + "th";
        };
    }
}
