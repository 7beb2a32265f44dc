package io.elasticgpu.scheduler.cache;

import io.elasticgpu.core.model.CardShare;
import io.elasticgpu.core.model.Grant;
import io.elasticgpu.core.snapshot.NodeState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the extender's cache believes, as {@code GET /debug/cache} shows it: every node with cards, each card with what
 * is held on it and by whom, and the pods the extender assumed or holds for a filter decision that the API does not
 * show bound yet. kube-scheduler's cache has its dump for the same reason: when a placement looks wrong, what the
 * extender believed is the first question. Immutable.
 *
 * @param nodes   the nodes with cards, by name
 * @param assumed the pods counted by the extender's own binds and filter decisions, not yet as the API shows them
 */
public record CacheDump(List<NodeDump> nodes, List<Holder> assumed) {

    /** One node's cards. */
    public record NodeDump(String name, List<CardDump> cards) {
        public NodeDump {
            cards = List.copyOf(cards);
        }
    }

    /**
     * One card: what it is, what is held on it, and each holder (by uid, sorted); {@code memoryHeldMib} and
     * {@code milliHeld} are what placement counts, assumptions included.
     */
    public record CardDump(
            int index,
            String model,
            boolean healthy,
            long memoryMib,
            long memoryHeldMib,
            int milliHeld,
            List<Holder> holders) {
        public CardDump {
            holders = List.copyOf(holders);
        }
    }

    /**
     * One holder's share of a card, or of a node for {@link CacheDump#assumed}.
     *
     * @param id     a pod's uid, or {@code claim:} and a claim's uid
     * @param name   {@code namespace/name}, or empty when the cache has no object for it
     * @param how    {@code pod}, {@code claim}, or {@code assumed} (the extender's own bind or filter decision)
     * @param node   the node it holds on
     * @param card   the card, or -1 for a host-only holder
     */
    public record Holder(String id, String name, String how, String node, int card, long memoryMib, int milli) {}

    public CacheDump {
        nodes = List.copyOf(nodes);
        assumed = List.copyOf(assumed);
    }

    /**
     * What a cache fed only {@code nodes}, {@code pods} and {@code claims} (a fresh list from the API) believes: what
     * {@link #differences} compares this cache's belief with.
     */
    public static CacheDump ofLists(
            java.util.function.Predicate<Pod> asksGpu,
            long memoryBlockMib,
            java.util.List<io.fabric8.kubernetes.api.model.Node> nodes,
            java.util.List<Pod> pods,
            java.util.List<ResourceClaim> claims) {
        ClusterCache fresh = new ClusterCache(asksGpu, memoryBlockMib);
        nodes.forEach(fresh::upsertNode);
        claims.forEach(fresh::upsertClaim);
        pods.forEach(fresh::upsertPod);
        return fresh.dump();
    }

    /** Built under the cache's lock from its parts. */
    static CacheDump of(Nodes nodes, Pods pods, Claims claims, Assumptions assumptions) {
        return of(
                nodes.entries(),
                pods.observed(),
                claims.observed(),
                assumptions.assumed(),
                pods::object,
                claims.byKey());
    }

    private static CacheDump of(
            NodeEntries entries,
            Map<String, PodHolding> pods,
            Map<String, PodHolding> claims,
            Map<String, PodHolding> assumed,
            java.util.function.Function<String, Pod> objects,
            Map<String, ResourceClaim> claimObjects) {
        Map<String, List<Holder>> byCard = new TreeMap<>(); // "<node>/<card>"
        List<Holder> assumedHolders = new ArrayList<>();
        pods.forEach((uid, h) -> {
            if (!assumed.containsKey(uid)) {
                add(byCard, holders(uid, name(objects.apply(uid)), "pod", h));
            }
        });
        Map<String, String> claimNames = new java.util.HashMap<>(); // by Claims.id, once: not a scan per claim
        claimObjects
                .values()
                .forEach(c -> claimNames.put(
                        Claims.id(c),
                        c.getMetadata().getNamespace() + "/" + c.getMetadata().getName()));
        claims.forEach((id, h) -> add(byCard, holders(id, claimNames.getOrDefault(id, ""), "claim", h)));
        assumed.forEach((uid, h) -> {
            List<Holder> mine = holders(uid, name(objects.apply(uid)), "assumed", h);
            add(byCard, mine);
            assumedHolders.addAll(mine);
        });
        List<NodeDump> nodes = new ArrayList<>();
        entries.forEach((name, entry) -> nodes.add(node(entry.state(), byCard)));
        nodes.sort(Comparator.comparing(NodeDump::name));
        assumedHolders.sort(Comparator.comparing(Holder::id).thenComparingInt(Holder::card));
        return new CacheDump(nodes, assumedHolders);
    }

    private static NodeDump node(NodeState state, Map<String, List<Holder>> byCard) {
        List<CardDump> cards = new ArrayList<>();
        for (int i = 0; i < state.cardCount(); i++) {
            List<Holder> on = new ArrayList<>(byCard.getOrDefault(state.name() + "/" + i, List.of()));
            on.sort(Comparator.comparing(Holder::id));
            cards.add(new CardDump(
                    i,
                    state.card(i).model(),
                    state.healthy(i),
                    state.card(i).memoryMib(),
                    state.usedMemory(i),
                    state.usedMilli(i),
                    on));
        }
        return new NodeDump(state.name(), cards);
    }

    private static List<Holder> holders(String id, String name, String how, PodHolding h) {
        List<Holder> out = new ArrayList<>();
        for (Grant g : h.placements()) {
            for (CardShare s : g.shares()) {
                out.add(new Holder(id, name, how, h.node(), s.card(), s.memoryMib(), s.milli()));
            }
        }
        return out;
    }

    private static void add(Map<String, List<Holder>> byCard, List<Holder> holders) {
        holders.forEach(h -> byCard.computeIfAbsent(h.node() + "/" + h.card(), k -> new ArrayList<>())
                .add(h));
    }

    private static String name(Pod p) {
        return p == null
                ? ""
                : p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
    }

    /**
     * Every difference between this cache's belief and {@code api}'s (a cache filled from a fresh list), one sentence
     * each, naming the node, card and holder. Holders assumed here are left out: the API shows them once their binds
     * land.
     */
    public List<String> differences(CacheDump api) {
        List<String> out = new ArrayList<>();
        Map<String, NodeDump> mine = byName(nodes);
        Map<String, NodeDump> theirs = byName(api.nodes);
        for (String name : union(mine.keySet(), theirs.keySet())) {
            NodeDump a = mine.get(name);
            NodeDump b = theirs.get(name);
            if (a == null || b == null) {
                out.add("node %s: %s"
                        .formatted(name, a == null ? "in the API, not in the cache" : "in the cache, not in the API"));
                continue;
            }
            if (a.cards().size() != b.cards().size()) {
                out.add("node %s: %d cards in the cache, %d in the API"
                        .formatted(name, a.cards().size(), b.cards().size()));
                continue;
            }
            for (int i = 0; i < a.cards().size(); i++) {
                card(name, a.cards().get(i), b.cards().get(i), out);
            }
        }
        return out;
    }

    private static void card(String node, CardDump a, CardDump b, List<String> out) {
        String at = "node %s card %d".formatted(node, a.index());
        if (!a.model().equals(b.model()) || a.healthy() != b.healthy() || a.memoryMib() != b.memoryMib()) {
            out.add("%s: the cache has %s, the API %s".formatted(at, describe(a), describe(b)));
        }
        Map<String, Holder> mine = holdersById(a, true);
        Map<String, Holder> theirs = holdersById(b, false);
        for (String id : union(mine.keySet(), theirs.keySet())) {
            Holder x = mine.get(id);
            Holder y = theirs.get(id);
            if (x == null) {
                out.add("%s: %s (%s) holds %s in the API, nothing in the cache".formatted(at, id, y.name(), share(y)));
            } else if (y == null) {
                out.add("%s: %s (%s) holds %s in the cache, nothing in the API".formatted(at, id, x.name(), share(x)));
            } else if (x.memoryMib() != y.memoryMib() || x.milli() != y.milli()) {
                out.add("%s: %s (%s) holds %s in the cache, %s in the API"
                        .formatted(at, id, x.name(), share(x), share(y)));
            }
        }
    }

    /** A card's holders by id, one summed share each; without assumed ones when {@code leaveAssumed}. */
    private static Map<String, Holder> holdersById(CardDump c, boolean leaveAssumed) {
        Map<String, Holder> out = new LinkedHashMap<>();
        for (Holder h : c.holders()) {
            if (leaveAssumed && h.how().equals("assumed")) {
                continue;
            }
            out.merge(
                    h.id(),
                    h,
                    (x, y) -> new Holder(
                            x.id(),
                            x.name(),
                            x.how(),
                            x.node(),
                            x.card(),
                            x.memoryMib() + y.memoryMib(),
                            x.milli() + y.milli()));
        }
        return out;
    }

    private static String describe(CardDump c) {
        return "%s, %d MiB, %s".formatted(c.model(), c.memoryMib(), c.healthy() ? "healthy" : "unhealthy");
    }

    private static String share(Holder h) {
        return "%d MiB and %d milli".formatted(h.memoryMib(), h.milli());
    }

    private static Map<String, NodeDump> byName(List<NodeDump> nodes) {
        Map<String, NodeDump> out = new LinkedHashMap<>();
        nodes.forEach(n -> out.put(n.name(), n));
        return out;
    }

    private static List<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.TreeSet<String> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return all.stream().filter(Objects::nonNull).toList();
    }
}
