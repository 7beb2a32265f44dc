package io.elasticgpu.bench.cluster;

import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The DRA side of a cluster replay ({@code --api dra}): the DeviceClass and every node's ResourceSlice, as the chart
 * and the DRA-mode agents make them; the pods' claims; and what each pod holds, read from its claim's allocation
 * with the same rule the extender counts it by.
 */
public final class DraReplay {

    private DraReplay() {}

    /**
     * Memory for the cards the node list gives none (0 MiB): a ResourceSlice must offer some, and the trace's pods
     * ask compute only, so any size that holds a hundred one-block slices places them alike.
     */
    public static final long UNKNOWN_CARD_MIB = 16_384;

    /** The node with {@link #UNKNOWN_CARD_MIB} on each card the node list gives no memory. */
    public static Node withMemory(Node node) {
        if (node.cards().stream().allMatch(c -> c.memoryMib() > 0)) {
            return node;
        }
        List<Card> cards = node.cards().stream()
                .map(c -> c.memoryMib() > 0
                        ? c
                        : new Card(
                                c.index(),
                                c.id(),
                                c.model(),
                                UNKNOWN_CARD_MIB,
                                c.computeMilli(),
                                c.health(),
                                c.numaNode()))
                .toList();
        return new Node(
                node.name(), node.cpuMilli(), node.memoryMib(), node.maxPods(), cards, node.labels(), node.topology());
    }

    /** The memory block the chart gives the extender and the agents (their request policy's step). */
    static long block(ChartConfig chart) {
        int at = chart.extenderArgs().indexOf("--memory-block-mib");
        return at < 0 ? 1 : Long.parseLong(chart.extenderArgs().get(at + 1));
    }

    /** The chart's DeviceClasses and one ResourceSlice per node, written from 8 clients. */
    static void publish(KubernetesClient client, Map<String, Node> nodes, long blockMib, List<DeviceClass> classes) {
        classes.forEach(c -> client.resource(c).create());
        inParallel(
                nodes.entrySet().stream()
                        .map(e -> ReplayObjects.slice(e.getKey(), e.getValue(), blockMib))
                        .toList(),
                slice -> client.resource(slice).create());
    }

    static void createClaims(KubernetesClient client, List<ResourceClaim> claims) {
        inParallel(claims, c -> client.resource(c).create());
    }

    /** Runs {@code task} on every item from 8 threads; the first failure stops the replay, naming the item. */
    private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> void inParallel(
            List<T> items, java.util.function.Consumer<T> task) {
        try (var pool = Executors.newFixedThreadPool(8)) {
            List<java.util.concurrent.Future<?>> done = items.stream()
                    .<java.util.concurrent.Future<?>>map(i -> pool.submit(() -> task.accept(i)))
                    .toList();
            for (int i = 0; i < done.size(); i++) {
                try {
                    done.get(i).get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(
                            "cannot create %s %s: %s"
                                    .formatted(
                                            items.get(i).getKind(),
                                            items.get(i).getMetadata().getName(),
                                            e.getCause().getMessage()),
                            e.getCause());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Deletes every claim of {@code namespace} (their pods must be gone first) and waits until they are gone. Their
     * delete-protection finalizer is removed by hand: kube-controller-manager would deallocate and release them one
     * by one at its client's rate, some twenty minutes for the trace's 8,000 claims; a benchmark only needs the
     * devices free again.
     */
    static void deleteClaims(KubernetesClient client, String namespace) {
        var claims = client.resources(ResourceClaim.class).inNamespace(namespace);
        claims.delete();
        inParallel(claims.list().getItems(), c -> {
            try {
                claims.withName(c.getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
            } catch (KubernetesClientException e) {
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        });
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!claims.list().getItems().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replay's ResourceClaims were not deleted within 3 minutes");
            }
            PodStream.sleep(1000);
        }
    }

    /**
     * What each pod holds as its claim's allocation says (claims are named as their pods), as an allocation of one
     * "container" {@code claim}, counted by the extender's rule: a device consuming all the memory its card offers is
     * the card alone.
     */
    static Function<Pod, PodGrant> holds(
            KubernetesClient client, String namespace, Map<String, Node> nodes, long blockMib) {
        Map<String, ResourceClaim> byName = new HashMap<>();
        client.resources(ResourceClaim.class)
                .inNamespace(namespace)
                .list()
                .getItems()
                .forEach(c -> byName.put(c.getMetadata().getName(), c));
        return pod -> {
            ResourceClaim claim = byName.get(pod.getMetadata().getName());
            List<DraShares.DraShare> shares = claim == null ? List.of() : DraShares.of(claim);
            if (shares.isEmpty()) {
                return null;
            }
            String node = shares.getFirst().node();
            var placements =
                    PodHolding.ofClaim(node, shares, nodes.get(node), blockMib).placements();
            return new PodGrant(
                    node,
                    Map.of(
                            "claim",
                            placements.stream()
                                    .flatMap(p -> p.shares().stream())
                                    .map(s -> new PodGrant.Share(s.card(), "", s.milli(), s.memoryMib()))
                                    .toList()));
        };
    }
}
