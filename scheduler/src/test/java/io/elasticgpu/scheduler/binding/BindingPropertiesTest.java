package io.elasticgpu.scheduler.binding;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.policy.Policies;
import io.elasticgpu.core.policy.PolicyContext;
import io.elasticgpu.core.policy.TypicalWorkload;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Two extender replicas with caches that lag the API by arbitrary amounts, binding, deleting, restarting and
 * letting reservations go stale in every order: no card ever holds more than its capacity, as the pods' own
 * allocation annotations tell it.
 */
class BindingPropertiesTest {

    private static final int CARD_MEMORY = 16_384;
    private static final List<String> NODES = List.of("n0", "n1", "n2");

    sealed interface Action {
        record Bind(int pod, int node, int replica) implements Action {}

        record Delete(int pod) implements Action {}

        record Restart(int replica) implements Action {}

        record Sync(int replica) implements Action {}

        record Wait(int seconds) implements Action {}
    }

    @Property(tries = 150)
    void noInterleavingOfBindsDeletesAndRestartsOversubscribesACard(
            @ForAll("pods") List<Map<String, String>> asks,
            @ForAll("actions") List<Action> actions,
            @ForAll("policies") String policy) {
        InMemoryClusterApi api = new InMemoryClusterApi();
        api.addNode(node("n0", 2, CARD_MEMORY, 0));
        api.addNode(node("n1", 4, CARD_MEMORY, 2));
        api.addNode(node("n2", 1, CARD_MEMORY, 0));
        List<Pod> pods = new ArrayList<>();
        for (int i = 0; i < asks.size(); i++) {
            Pod p = pod("ns", "p" + i, "uid-" + i, container("main", asks.get(i)));
            pods.add(p);
            api.addPod(p);
        }
        AtomicLong now = new AtomicLong(Instant.parse("2026-11-21T10:00:00Z").toEpochMilli());
        var context = PolicyContext.of(
                RandomGenerator.of("L64X128MixRandom"),
                TypicalWorkload.of(List.of(new TypicalWorkload.Typical(Ask.wholeCards(0, 0, 1), 1.0))));
        var chosen = Policies.create(policy, context);
        Map<Integer, ClusterCache> caches = new HashMap<>();
        Map<Integer, Binder> binders = new HashMap<>();
        for (int r = 0; r < 2; r++) {
            restart(r, api, caches, binders, chosen, now);
        }
        for (Action action : actions) {
            switch (action) {
                case Action.Bind b -> {
                    Pod p = pods.get(b.pod() % pods.size());
                    Pod current = api.pods().stream()
                            .filter(x -> x.getMetadata()
                                    .getUid()
                                    .equals(p.getMetadata().getUid()))
                            .findFirst()
                            .orElse(null);
                    if (current != null && current.getSpec().getNodeName() == null) {
                        binders.get(b.replica()).bind(p, PodAsk.of(p, PodAsks.Units.DEFAULT), NODES.get(b.node()));
                    }
                }
                case Action.Delete d -> {
                    Pod p = pods.get(d.pod() % pods.size());
                    api.deletePod("ns", p.getMetadata().getName());
                }
                case Action.Restart r -> restart(r.replica(), api, caches, binders, chosen, now);
                case Action.Sync s -> api.feed(caches.get(s.replica()));
                case Action.Wait w -> now.addAndGet(w.seconds() * 1000L);
            }
            assertNoCardOverCapacity(api);
        }
    }

    private static void restart(
            int r,
            InMemoryClusterApi api,
            Map<Integer, ClusterCache> caches,
            Map<Integer, Binder> binders,
            io.elasticgpu.core.policy.Policy policy,
            AtomicLong now) {
        ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
        api.feed(cache);
        caches.put(r, cache);
        binders.put(
                r,
                new Binder(
                        api,
                        cache,
                        () -> policy,
                        PodAsks.Units.DEFAULT,
                        () -> Instant.ofEpochMilli(now.get()),
                        Duration.ofSeconds(60)));
    }

    private static void assertNoCardOverCapacity(InMemoryClusterApi api) {
        Map<String, long[]> milli = new HashMap<>();
        Map<String, long[]> memory = new HashMap<>();
        for (Pod p : api.pods()) {
            String node = p.getSpec().getNodeName();
            String json = p.getMetadata().getAnnotations() == null
                    ? null
                    : p.getMetadata().getAnnotations().get(Annotations.ALLOCATION);
            if (node == null || json == null) {
                continue;
            }
            PodGrant a = PodGrant.fromJson(json);
            assertThat(a.node()).isEqualTo(node);
            for (var shares : a.containers().values()) {
                for (var s : shares) {
                    milli.computeIfAbsent(node, k -> new long[4])[s.card()] += s.milli();
                    memory.computeIfAbsent(node, k -> new long[4])[s.card()] += s.memoryMib();
                }
            }
        }
        milli.forEach(
                (node, cards) -> assertThat(java.util.Arrays.stream(cards).max().orElse(0))
                        .as("most milli on a card of %s", node)
                        .isLessThanOrEqualTo(1000));
        memory.forEach(
                (node, cards) -> assertThat(java.util.Arrays.stream(cards).max().orElse(0))
                        .as("most MiB on a card of %s", node)
                        .isLessThanOrEqualTo(CARD_MEMORY));
    }

    @Provide
    Arbitrary<String> policies() {
        return Arbitraries.of("binpack", "spread", "elastic", "random");
    }

    @Provide
    Arbitrary<List<Map<String, String>>> pods() {
        Arbitrary<Map<String, String>> memory = Arbitraries.integers()
                .between(1_000, CARD_MEMORY)
                .map(m -> Map.of("elasticgpu.io/gpu-memory", Integer.toString(m)));
        Arbitrary<Map<String, String>> core =
                Arbitraries.integers().between(10, 90).map(c -> Map.of("elasticgpu.io/gpu-core", Integer.toString(c)));
        Arbitrary<Map<String, String>> whole =
                Arbitraries.integers().between(1, 2).map(n -> Map.of("elasticgpu.io/gpu", Integer.toString(n)));
        Arbitrary<Map<String, String>> both = Combinators.combine(
                        Arbitraries.integers().between(1_000, 8_000),
                        Arbitraries.integers().between(10, 50))
                .as((m, c) -> Map.of(
                        "elasticgpu.io/gpu-memory",
                        Integer.toString(m),
                        "elasticgpu.io/gpu-core",
                        Integer.toString(c)));
        return Arbitraries.oneOf(memory, core, whole, both).list().ofMinSize(2).ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<Action>> actions() {
        Arbitrary<Action> bind = Combinators.combine(
                        Arbitraries.integers().between(0, 11),
                        Arbitraries.integers().between(0, 2),
                        Arbitraries.integers().between(0, 1))
                .as(Action.Bind::new);
        Arbitrary<Action> delete = Arbitraries.integers().between(0, 11).map(Action.Delete::new);
        Arbitrary<Action> restart = Arbitraries.integers().between(0, 1).map(Action.Restart::new);
        Arbitrary<Action> sync = Arbitraries.integers().between(0, 1).map(Action.Sync::new);
        Arbitrary<Action> wait = Arbitraries.of(1, 30, 61).map(Action.Wait::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(8, bind),
                        net.jqwik.api.Tuple.of(2, delete),
                        net.jqwik.api.Tuple.of(1, restart),
                        net.jqwik.api.Tuple.of(3, sync),
                        net.jqwik.api.Tuple.of(2, wait))
                .list()
                .ofMinSize(5)
                .ofMaxSize(40);
    }
}
