package io.elasticgpu.scheduler.extender;

import io.elasticgpu.scheduler.cache.CacheDump;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code GET /debug/cache}: what the extender's cache believes ({@link CacheDump}), and, unless {@code ?compare=false},
 * every difference from a cache filled from a fresh list of the API's nodes, pods and claims. Served with the verbs,
 * on their address (loopback beside kube-scheduler, or TLS), never on the metrics address. The fresh lists cost what
 * listing every pod costs: a tool to run when a placement looks wrong, not to poll.
 */
final class CacheDebug {

    /** The API's objects, listed now. */
    record Lists(List<Node> nodes, List<Pod> pods, List<ResourceClaim> claims) {}

    /**
     * What {@code /debug/cache} answers.
     *
     * @param compared    whether the cache was compared with a fresh list
     * @param why         why not, when it was not
     * @param differences each difference in a sentence naming the node, card and holder; empty when none, or when
     *                    not compared
     */
    record Report(CacheDump cache, boolean compared, String why, List<String> differences) {}

    private final ClusterCache cache;
    private final Predicate<Pod> asksGpu;
    private final long memoryBlockMib;
    private final Optional<Supplier<Lists>> api;

    /** @param api lists the API's objects; empty for an extender whose cache a benchmark feeds */
    CacheDebug(ClusterCache cache, Predicate<Pod> asksGpu, long memoryBlockMib, Optional<Supplier<Lists>> api) {
        this.cache = cache;
        this.asksGpu = asksGpu;
        this.memoryBlockMib = memoryBlockMib;
        this.api = api;
    }

    Report report(boolean compare) {
        CacheDump mine = cache.dump();
        if (!compare) {
            return new Report(mine, false, "not asked (?compare=false)", List.of());
        }
        if (api.isEmpty()) {
            return new Report(mine, false, "this extender reads no API (its cache is fed directly)", List.of());
        }
        Lists lists;
        try {
            lists = api.get().get();
        } catch (KubernetesClientException e) {
            return new Report(mine, false, "cannot list from the API server: " + e.getMessage(), List.of());
        }
        CacheDump theirs = CacheDump.ofLists(asksGpu, memoryBlockMib, lists.nodes(), lists.pods(), lists.claims());
        return new Report(mine, true, "", mine.differences(theirs));
    }
}
