package io.elasticgpu.node.allocation;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The calls {@link PlanAllocator} answered and has not forgotten, by the order they were answered in, indexed by
 * container, by pod and by plan owner, so that a call asks them what it needs in time that does not grow with the
 * answers kept (a busy node keeps hundreds: calls of pods that came and went between two reads of kubelet's records).
 * Not thread-safe: used under the allocator's lock.
 */
final class Answers implements Served.InFlight {

    private final NavigableMap<Long, Answer> bySerial = new TreeMap<>();
    private final Map<ContainerKey, TreeSet<Long>> byContainer = new HashMap<>();
    private final Map<PodName, Integer> byPod = new HashMap<>();
    private final Map<ContainerKey, Integer> planOwners = new HashMap<>();
    private int guesses; // answers neither seen in kubelet's records nor certain
    private int unseen;

    /** Adds the answer {@code serial}, or replaces it. */
    void put(long serial, Answer answer) {
        remove(serial);
        bySerial.put(serial, answer);
        ContainerKey k = answer.grant().container();
        byContainer.computeIfAbsent(k, x -> new TreeSet<>()).add(serial);
        byPod.merge(PodName.of(k), 1, Integer::sum);
        planOwners.merge(answer.planOwner(), 1, Integer::sum);
        count(answer, 1);
    }

    void remove(long serial) {
        Answer old = bySerial.remove(serial);
        if (old == null) {
            return;
        }
        ContainerKey k = old.grant().container();
        TreeSet<Long> serials = byContainer.get(k);
        serials.remove(serial);
        if (serials.isEmpty()) {
            byContainer.remove(k);
        }
        byPod.computeIfPresent(PodName.of(k), (p, n) -> n == 1 ? null : n - 1);
        planOwners.computeIfPresent(old.planOwner(), (o, n) -> n == 1 ? null : n - 1);
        count(old, -1);
    }

    private void count(Answer a, int sign) {
        if (!a.seen()) {
            unseen += sign;
            if (!a.certain()) {
                guesses += sign;
            }
        }
    }

    boolean isEmpty() {
        return bySerial.isEmpty();
    }

    int size() {
        return bySerial.size();
    }

    /** In answer order. A view: do not change the answers while iterating it. */
    Iterable<Answer> values() {
        return bySerial.values();
    }

    /** A copy, in answer order, to change the answers while going through it. */
    List<Map.Entry<Long, Answer>> entries() {
        return List.copyOf(bySerial.entrySet());
    }

    Map.Entry<Long, Answer> latest() {
        return bySerial.lastEntry();
    }

    /** Whether some answer was a guess among containers of one shape that kubelet's records have not settled. */
    boolean guessOutstanding() {
        return guesses > 0;
    }

    /** Whether some answer is not in kubelet's records yet. */
    boolean anyUnseen() {
        return unseen > 0;
    }

    /** Whether {@code owner}'s plan was handed out by some answer. */
    boolean taken(ContainerKey owner) {
        return planOwners.containsKey(owner);
    }

    /** The first answer for {@code container} other than {@code skip} (which may be null). */
    Optional<Answer> first(ContainerKey container, Answer skip) {
        for (long serial : serialsOf(container)) {
            Answer a = bySerial.get(serial);
            if (a != skip) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** The first answer for {@code container} that did not answer {@code resource}, with its serial. */
    Optional<Map.Entry<Long, Answer>> firstWithout(ContainerKey container, String resource) {
        for (long serial : serialsOf(container)) {
            Answer a = bySerial.get(serial);
            if (!a.ids().containsKey(resource)) {
                return Optional.of(Map.entry(serial, a));
            }
        }
        return Optional.empty();
    }

    @Override
    public boolean holds(ContainerKey container, String resource) {
        for (long serial : serialsOf(container)) {
            if (bySerial.get(serial).ids().containsKey(resource)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean anyFor(PodName pod) {
        return byPod.containsKey(pod);
    }

    private Set<Long> serialsOf(ContainerKey container) {
        Set<Long> serials = byContainer.get(container);
        return serials == null ? Set.of() : serials;
    }
}
