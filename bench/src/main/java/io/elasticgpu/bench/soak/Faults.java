package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The faults, on a seeded schedule: each round does every kind once, in a shuffled order, so a short soak sees them
 * all. A fault that takes something away (a card, a node) gives it back later, as a recovered card or a rebooted
 * node would come back. Each is logged with its time.
 */
final class Faults {

    enum Kind {
        EXTENDER_KILLED,
        CONTROLLER_LEADER_KILLED,
        SCHEDULER_KILLED,
        APISERVER_RESTARTED,
        CARD_UNHEALTHY,
        NODE_DELETED,
        BURST,
        UPGRADE_AND_ROLLBACK
    }

    private record Later(long dueNanos, String what, Runnable action) {}

    private final SoakCluster cluster;
    private final Load load;
    private final int burst;
    private final Duration giveBackAfter;
    private final SplittableRandom random;
    private final long start = System.nanoTime();
    private final List<Kind> round = new ArrayList<>(List.of(Kind.values()));
    private final List<Later> later = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final Map<String, Integer> counts = new TreeMap<>();
    private final Failovers failovers = new Failovers();
    private int next = round.size();
    private final Duration restartsUntil;

    Faults(SoakCluster cluster, Load load, SoakOptions options) {
        this.cluster = cluster;
        this.load = load;
        this.burst = options.burst();
        this.giveBackAfter = options.faultEvery().multipliedBy(2);
        this.random = new SplittableRandom(options.seed() * 31 + 7);
        this.restartsUntil = options.restartsUntil();
    }

    /** The faults that restart one of our JVMs, and the others, which stand in for them after restartsUntil. */
    private static final java.util.Set<Kind> RESTARTS =
            java.util.EnumSet.of(Kind.EXTENDER_KILLED, Kind.CONTROLLER_LEADER_KILLED, Kind.UPGRADE_AND_ROLLBACK);

    private static final List<Kind> RESTART_NOTHING =
            List.copyOf(java.util.EnumSet.complementOf(java.util.EnumSet.copyOf(RESTARTS)));

    /** The next fault of the schedule, and whatever is due to come back. */
    void next() {
        giveBack(false);
        if (next == round.size()) {
            Collections.shuffle(round, new java.util.Random(random.nextLong()));
            next = 0;
        }
        Kind kind = round.get(next++);
        if (restartsUntil != null && System.nanoTime() - start > restartsUntil.toNanos() && RESTARTS.contains(kind)) {
            kind = RESTART_NOTHING.get(random.nextInt(RESTART_NOTHING.size())); // seeded, as the rounds' order is
        }
        String detail;
        long at = System.nanoTime();
        int pending = load.pending();
        try {
            detail = inflict(kind);
            boolean killed = kind == Kind.EXTENDER_KILLED
                    || kind == Kind.SCHEDULER_KILLED
                    || kind == Kind.UPGRADE_AND_ROLLBACK
                    || (kind == Kind.CONTROLLER_LEADER_KILLED && !detail.startsWith(SoakCluster.NONE_KILLED));
            if (killed) {
                failovers.record(kind.name(), at, pending);
            }
        } catch (KubernetesClientException e) {
            detail = "not done, the API refused: " + e.getMessage(); // e.g. still restarting after the previous fault
        }
        counts.merge(kind.name(), 1, Integer::sum);
        record(kind.name(), detail);
    }

    /** Gives back what is due ({@code all}: everything still taken away, before the drain). */
    void giveBack(boolean all) {
        for (int attempt = 0; attempt < (all ? 30 : 1) && !later.isEmpty(); attempt++) {
            long now = System.nanoTime();
            for (Later l : List.copyOf(later)) {
                if (all || l.dueNanos() <= now) {
                    giveBack(l);
                }
            }
            if (all && !later.isEmpty()) {
                Soak.sleep(Duration.ofSeconds(2));
            }
        }
    }

    /** One give-back; refused (the API server restarting), it is tried again at the next chance. */
    private void giveBack(Later l) {
        try {
            l.action().run();
            later.remove(l);
            record("GIVEN_BACK", l.what());
        } catch (KubernetesClientException e) {
            record("GIVE_BACK_DEFERRED", l.what() + ": " + e.getMessage());
        }
    }

    private String inflict(Kind kind) {
        return switch (kind) {
            case EXTENDER_KILLED -> cluster.crashActiveExtender();
            case CONTROLLER_LEADER_KILLED -> cluster.crashControllerLeader();
            case SCHEDULER_KILLED -> cluster.crash("kube-scheduler");
            case APISERVER_RESTARTED -> cluster.crash("kube-apiserver");
            case CARD_UNHEALTHY -> cardUnhealthy();
            case NODE_DELETED -> nodeDeleted();
            case UPGRADE_AND_ROLLBACK -> cluster.upgradeAndRollBack(giveBackAfter.dividedBy(4));
            case BURST -> {
                load.burst(burst);
                yield burst + " pods at once";
            }
        };
    }

    private String cardUnhealthy() {
        GpuNodeSpec spec = randomNode();
        int card = random.nextInt(spec.cards());
        publish(spec, card);
        later.add(new Later(
                System.nanoTime() + giveBackAfter.toNanos(),
                spec.name() + " card " + card + " healthy",
                () -> publish(spec, -1)));
        return spec.name() + " card " + card;
    }

    /** The node's inventory as its agent would publish it, card {@code unhealthy} (if any) marked unhealthy. */
    private void publish(GpuNodeSpec spec, int unhealthy) {
        List<NodeInventory.Card> cards = spec.inventory().cards().stream()
                .map(c -> c.index() != unhealthy
                        ? c
                        : new NodeInventory.Card(c.index(), c.uuid(), c.model(), c.memoryMib(), false, c.numa()))
                .toList();
        String json = new NodeInventory(cards, spec.links()).toJson();
        // A merge patch without a resourceVersion, as the agent writes it: kwok's heartbeats change the node all the
        // time, and an edit (read, then write that version) lost that race with a 409 now and then.
        Map<String, Object> patch = Map.of("metadata", Map.of("annotations", Map.of(Annotations.INVENTORY, json)));
        cluster.client()
                .nodes()
                .withName(spec.name())
                .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(patch));
    }

    private String nodeDeleted() {
        List<String> busy = cluster.client().pods().inNamespace(SoakCluster.NAMESPACE).list().getItems().stream()
                .map(p -> p.getSpec().getNodeName())
                .filter(n -> n != null && cluster.nodes().containsKey(n))
                .distinct()
                .sorted()
                .toList();
        GpuNodeSpec spec = busy.isEmpty() ? randomNode() : cluster.nodes().get(busy.get(random.nextInt(busy.size())));
        long pods = cluster.client().pods().inNamespace(SoakCluster.NAMESPACE).list().getItems().stream()
                .filter(p -> spec.name().equals(p.getSpec().getNodeName()))
                .count();
        cluster.client().nodes().withName(spec.name()).delete();
        later.add(new Later(
                System.nanoTime() + giveBackAfter.toNanos(),
                spec.name() + " re-created",
                () -> cluster.client()
                        .nodes()
                        .resource(FakeGpuNodes.toNode(spec))
                        .create()));
        return spec.name() + " with " + pods + " pods on it";
    }

    private GpuNodeSpec randomNode() {
        List<GpuNodeSpec> all = List.copyOf(cluster.nodes().values());
        return all.get(random.nextInt(all.size()));
    }

    private void record(String kind, String detail) {
        String line = "%.0f s %s %s".formatted((System.nanoTime() - start) / 1e9, kind, detail);
        log.add(line);
        System.err.println("soak: " + line);
    }

    /** Whether every kind of fault has been inflicted at least once. */
    boolean everyKindDone() {
        return counts.size() == Kind.values().length;
    }

    /** The kills of what placement and admission go through, timed. */
    Failovers failovers() {
        return failovers;
    }

    Map<String, Integer> counts() {
        return new LinkedHashMap<>(counts);
    }

    List<String> log() {
        return List.copyOf(log);
    }
}
