package io.elasticgpu.scheduler.cache;

import static io.elasticgpu.scheduler.K8s.allocated;
import static io.elasticgpu.scheduler.K8s.bound;
import static io.elasticgpu.scheduler.K8s.claim;
import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** What {@code /debug/cache} shows: the cache's belief, and each difference from a fresh list named. */
class CacheDumpTest {

    private static final Predicate<Pod> GPU = p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT);

    private final ClusterCache cache = new ClusterCache(GPU, 1);
    private final Pod a =
            pod("ns", "a", "uid-a", container("main", Map.of("elasticgpu.io/gpu-memory", "8192", "cpu", "2")));
    private final Pod b =
            pod("ns", "b", "uid-b", container("main", Map.of("elasticgpu.io/gpu-memory", "4096", "cpu", "1")));
    private final ResourceClaim c = allocated(claim("ns", "c", "uid-c", "4Gi"), "n1", 0, 4096, "uid-p");

    private static PodGrant on(int card, long mib) {
        return new PodGrant("n1", Map.of("main", List.of(new PodGrant.Share(card, "GPU-n1-" + card, 0, mib))));
    }

    private void fill() {
        cache.upsertNode(node("n1", 2, 16_384, 0));
        cache.upsertPod(bound(a, "n1", on(1, 8192)));
        cache.upsertClaim(c);
        // b: the extender bound it a moment ago; the API shows it pending yet
        cache.upsertPod(b);
        cache.assume("uid-b", PodHolding.of("n1", PodResources.of(b), on(0, 4096)));
    }

    @Test
    void theDumpShowsEachCardWithWhatIsHeldAndByWhomAndTheAssumedPods() {
        fill();

        CacheDump dump = cache.dump();

        assertThat(dump.nodes()).singleElement().satisfies(n -> {
            assertThat(n.name()).isEqualTo("n1");
            assertThat(n.cards().get(0).memoryHeldMib()).isEqualTo(8192);
            assertThat(n.cards().get(0).holders())
                    .extracting(CacheDump.Holder::id, CacheDump.Holder::name, CacheDump.Holder::how)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("claim:uid-c", "ns/c", "claim"),
                            org.assertj.core.groups.Tuple.tuple("uid-b", "ns/b", "assumed"));
            assertThat(n.cards().get(1).holders())
                    .singleElement()
                    .satisfies(h ->
                            assertThat(h).isEqualTo(new CacheDump.Holder("uid-a", "ns/a", "pod", "n1", 1, 8192, 0)));
        });
        assertThat(dump.assumed()).extracting(CacheDump.Holder::id).containsExactly("uid-b");
    }

    @Test
    void aFreshListThatAgreesShowsNoDifferenceThoughAPodIsOnlyAssumed() {
        fill();

        CacheDump api = CacheDump.ofLists(
                GPU, 1, List.of(node("n1", 2, 16_384, 0)), List.of(bound(a, "n1", on(1, 8192)), b), List.of(c));

        assertThat(cache.dump().differences(api)).isEmpty();
    }

    /** Planted: the API says a holds half what the cache counts, a node the cache lacks, a claim it lacks. */
    @Test
    void everyPlantedDifferenceIsNamedWithItsNodeCardAndHolder() {
        fill();
        ResourceClaim d = allocated(claim("ns", "d", "uid-d", "2Gi"), "n1", 1, 2048, "uid-q");

        CacheDump api = CacheDump.ofLists(
                GPU,
                1,
                List.of(node("n1", 2, 16_384, 0), node("n2", 1, 16_384, 0)),
                List.of(bound(a, "n1", on(1, 4096)), b),
                List.of(c, d));

        assertThat(cache.dump().differences(api))
                .containsExactly(
                        "node n1 card 1: claim:uid-d (ns/d) holds 2048 MiB and 0 milli in the API, nothing in the"
                                + " cache",
                        "node n1 card 1: uid-a (ns/a) holds 8192 MiB and 0 milli in the cache, 4096 MiB and 0 milli in"
                                + " the API",
                        "node n2: in the API, not in the cache");
    }
}
