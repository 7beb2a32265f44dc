package io.elasticgpu.simulator.replay;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.MigGeometry;
import io.elasticgpu.core.model.MigProfile;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.List;

/**
 * One replay with every card in MIG mode: each pod's ask on a card becomes an instance of the smallest profile that
 * holds it ({@link MigGeometry#smallestHolding}; a whole card's ask, the whole card's profile, which fits only an empty
 * card), placed as {@link Choice} says; pods arrive one at a time, no retries, no departures, as in {@link Replay}.
 * The log counts what the pods asked, as the shares' replay does, so that the two allocations compare; the
 * {@link Result} adds what the instances handed out beyond it.
 *
 * <p>Every card gets the one geometry given, whatever its model: the openb cluster's cards (P100, T4, V100, ...) have
 * no MIG, so the question answered is what fixed partitions of the same cards would cost.
 */
public final class MigReplay {

    /** Where an instance goes. */
    public enum Choice {
        /**
         * The node and card the instance leaves fullest (fewest free memory slices), and on that card the start that
         * keeps the most room for the largest profiles ({@link io.elasticgpu.core.model.MigCard#placeKeepingLargest});
         * multi-card pods on the node with the fewest empty cards that holds them; CPU-only pods on the node with the
         * fewest free memory slices that holds them.
         */
        KEEP_LARGEST("mig"),
        /** The first node in priority order that holds the pod, its first card and first free start. */
        FIRST_FIT("mig-first-fit");

        private final String label;

        Choice(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * One replay's figures.
     *
     * @param log               what the pods asked and where they went, as a shares' replay logs it
     * @param instances         MIG instances handed out
     * @param askedMilli        compute the placed pods asked, milli-cards
     * @param handedOutMilli    compute their instances hold, milli-cards (a 1g instance of 7 slices: 142.857)
     * @param memoryHandedOut   memory their instances hold, in cards' worth (a 1g.10gb of 8 slices: 0.125)
     * @param sharingAskedMilli compute the placed pods that asked part of a card asked
     * @param sharingHandedOutMilli compute their instances hold
     * @param profiles          instances handed out per profile, smallest profile first
     */
    public record Result(
            EventLog log,
            long instances,
            long askedMilli,
            double handedOutMilli,
            double memoryHandedOut,
            long sharingAskedMilli,
            double sharingHandedOutMilli,
            java.util.Map<String, Long> profiles) {}

    private final MigStates states;
    private final Choice choice;
    private final List<Node> nodes;
    private final long[] freeCpu;
    private final long[] freeMemory;
    private final int[] freePods;
    private final int[][] cards; // node -> card -> state
    private long instances;
    private long askedMilli;
    private double handedOutMilli;
    private double memoryHandedOut;
    private long sharingAskedMilli;
    private double sharingHandedOutMilli;
    private final long[] perProfile;

    /**
     * @param nodes     the cluster in priority order: on equal choices the earlier node wins
     * @param geometry  every card's MIG geometry
     * @param choice    where instances go
     */
    public MigReplay(List<Node> nodes, MigGeometry geometry, Choice choice) {
        this.nodes = List.copyOf(nodes);
        this.states = new MigStates(requireNonNull(geometry, "geometry"));
        this.choice = requireNonNull(choice, "choice");
        this.freeCpu = this.nodes.stream().mapToLong(Node::cpuMilli).toArray();
        this.freeMemory = this.nodes.stream().mapToLong(Node::memoryMib).toArray();
        this.freePods = this.nodes.stream().mapToInt(Node::maxPods).toArray();
        this.cards = this.nodes.stream()
                .map(n -> new int[n.cardCount()]) // every card at state 0, empty
                .toArray(int[][]::new);
        this.perProfile = new long[geometry.profiles().size()];
    }

    public Result run(List<TracePod> arrivals) {
        long capacity = nodes.stream().mapToLong(n -> 1000L * n.cardCount()).sum();
        EventLog log = new EventLog(capacity, arrivals.size());
        long arrived = 0;
        for (TracePod pod : arrivals) {
            Ask ask = pod.ask();
            arrived += ask.totalMilli();
            String node = place(ask);
            log.add(arrived, askedMilli, 0, node);
        }
        java.util.Map<String, Long> profiles = new java.util.LinkedHashMap<>();
        for (int p = 0; p < perProfile.length; p++) {
            profiles.put(states.geometry().profiles().get(p).name(), perProfile[p]);
        }
        return new Result(
                log,
                instances,
                askedMilli,
                handedOutMilli,
                memoryHandedOut,
                sharingAskedMilli,
                sharingHandedOutMilli,
                profiles);
    }

    /** Places one pod; its node's name, or null when it fits nowhere. */
    private String place(Ask ask) {
        if (!ask.needsCards()) {
            int n = choice == Choice.FIRST_FIT ? firstHost(ask) : fullestHost(ask);
            return n < 0 ? null : take(n, ask, -1, new int[0]);
        }
        MigGeometry geometry = states.geometry();
        MigProfile profile = geometry.smallestHolding(ask.milliPerCard()).orElse(null);
        if (profile == null) {
            return null;
        }
        int p = geometry.profiles().indexOf(profile);
        return ask.cards() == 1 ? placeOne(ask, p) : placeMany(ask, p);
    }

    private String placeOne(Ask ask, int p) {
        int bestNode = -1;
        int bestCard = -1;
        int bestState = -1;
        for (int n = 0; n < nodes.size(); n++) {
            if (!hostFits(n, ask)) {
                continue;
            }
            for (int c = 0; c < cards[n].length; c++) {
                int next = next(cards[n][c], p);
                if (next < 0) {
                    continue;
                }
                if (choice == Choice.FIRST_FIT) {
                    return take(n, ask, p, new int[] {c, next});
                }
                if (bestState < 0 || better(next, bestState)) {
                    bestNode = n;
                    bestCard = c;
                    bestState = next;
                }
            }
        }
        return bestNode < 0 ? null : take(bestNode, ask, p, new int[] {bestCard, bestState});
    }

    /** Fewer free memory slices after, then more room for the largest profiles. */
    private boolean better(int state, int than) {
        int free = states.freeMemory(state);
        int thanFree = states.freeMemory(than);
        return free != thanFree ? free < thanFree : states.room(state) > states.room(than);
    }

    /** A pod of several cards: each one instance of profile {@code p} (the whole card's, for the trace's). */
    private String placeMany(Ask ask, int p) {
        int bestNode = -1;
        int bestFitting = Integer.MAX_VALUE;
        for (int n = 0; n < nodes.size(); n++) {
            if (!hostFits(n, ask)) {
                continue;
            }
            int fitting = 0;
            for (int state : cards[n]) {
                if (next(state, p) >= 0) {
                    fitting++;
                }
            }
            if (fitting >= ask.cards() && fitting < bestFitting) {
                bestNode = n;
                bestFitting = fitting;
                if (choice == Choice.FIRST_FIT) {
                    break;
                }
            }
        }
        if (bestNode < 0) {
            return null;
        }
        int[] chosen = new int[2 * ask.cards()];
        int taken = 0;
        for (int c = 0; c < cards[bestNode].length && taken < ask.cards(); c++) {
            int next = next(cards[bestNode][c], p);
            if (next >= 0) {
                chosen[2 * taken] = c;
                chosen[2 * taken + 1] = next;
                taken++;
            }
        }
        return take(bestNode, ask, p, chosen);
    }

    private int next(int state, int p) {
        return choice == Choice.FIRST_FIT ? states.firstFit(state, p) : states.keepLargest(state, p);
    }

    private int firstHost(Ask ask) {
        for (int n = 0; n < nodes.size(); n++) {
            if (hostFits(n, ask)) {
                return n;
            }
        }
        return -1;
    }

    /** The node holding the pod with the fewest free memory slices on its cards: CPU where no card waits. */
    private int fullestHost(Ask ask) {
        int best = -1;
        int bestFree = Integer.MAX_VALUE;
        for (int n = 0; n < nodes.size(); n++) {
            if (!hostFits(n, ask)) {
                continue;
            }
            int free = 0;
            for (int state : cards[n]) {
                free += states.freeMemory(state);
            }
            if (free < bestFree) {
                best = n;
                bestFree = free;
            }
        }
        return best;
    }

    private boolean hostFits(int n, Ask ask) {
        return freePods[n] >= 1
                && freeCpu[n] >= ask.cpuMilli()
                && freeMemory[n] >= ask.memoryMib()
                && (!ask.needsCards()
                        || (cards[n].length >= ask.cards()
                                && ask.acceptsModel(nodes.get(n).model())));
    }

    /** Takes the host resources on node {@code n} and, for profile {@code p}, each (card, next state) pair. */
    private String take(int n, Ask ask, int p, int[] cardStates) {
        freePods[n]--;
        freeCpu[n] -= ask.cpuMilli();
        freeMemory[n] -= ask.memoryMib();
        if (p >= 0) {
            MigGeometry geometry = states.geometry();
            MigProfile profile = geometry.profiles().get(p);
            double compute = 1000.0 * profile.computeSlices() / geometry.computeSlices();
            for (int i = 0; i < cardStates.length; i += 2) {
                cards[n][cardStates[i]] = cardStates[i + 1];
                instances++;
                perProfile[p]++;
                handedOutMilli += compute;
                memoryHandedOut += (double) profile.memorySlices() / geometry.memorySlices();
            }
            askedMilli += ask.totalMilli();
            if (ask.milliPerCard() < io.elasticgpu.core.model.Card.WHOLE) {
                sharingAskedMilli += ask.totalMilli();
                sharingHandedOutMilli += compute * ask.cards();
            }
        }
        return nodes.get(n).name();
    }
}
