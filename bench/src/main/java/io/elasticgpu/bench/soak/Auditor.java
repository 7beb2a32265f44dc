package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaimStatus.Phase;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.core.snapshot.Reason;
import io.elasticgpu.scheduler.binding.KubernetesClusterApi;
import io.elasticgpu.scheduler.cache.NodeConversion;
import io.elasticgpu.scheduler.cache.PodHolding;
import io.elasticgpu.scheduler.cache.PodResources;
import io.elasticgpu.scheduler.decision.PodAsk;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads only the API, every few seconds, and records every broken invariant: a card whose holders' shares add up
 * to more than it has, a bound GPU pod without an allocation, a pending pod that some node has fitted for longer
 * than {@link #FITS_BUT_PENDING}, a claim whose pod holds cards and that is not Bound after {@link #CLAIM_BINDS}; and,
 * after the final drain, allocations left behind: ElasticGPU objects and ledger
 * entries of pods that are gone.
 */
final class Auditor {

    /** A pod some node fits may wait this long (kube-scheduler's back-off, a fault's outage) before it counts. */
    static final Duration FITS_BUT_PENDING = Duration.ofSeconds(90);
    /** How long the controller may take to bind a claim whose pod got its cards. */
    static final Duration CLAIM_BINDS = Duration.ofSeconds(60);

    private final KubernetesClient client;
    private final Violations violations;
    private final Map<String, Long> fitsSince = new HashMap<>();
    private final Map<String, Long> claimSince = new HashMap<>();
    private final Set<String> reportedClaims = new HashSet<>();
    private int samples;

    Auditor(KubernetesClient client, Violations violations) {
        this.client = client;
        this.violations = violations;
    }

    int samples() {
        return samples;
    }

    /** One look at the cluster; an unreachable API server (a fault) skips the sample. */
    void sample() {
        List<Pod> pods;
        Map<String, Node> nodes = new HashMap<>();
        try {
            pods = client.pods().inNamespace(SoakCluster.NAMESPACE).list().getItems();
            for (var k8s : client.nodes().list().getItems()) {
                NodeConversion.convert(k8s).ifPresent(n -> nodes.put(n.name(), n));
            }
        } catch (KubernetesClientException e) {
            return;
        }
        samples++;
        Map<String, NodeState> states = new HashMap<>();
        nodes.forEach((name, node) -> states.put(name, NodeState.empty(node)));
        Map<String, long[][]> held = new HashMap<>();
        for (Pod pod : pods) {
            String node = pod.getSpec().getNodeName();
            if (node == null || node.isEmpty() || terminal(pod)) {
                continue;
            }
            PodGrant allocation = allocation(pod);
            if (allocation == null && asksGpu(pod)) {
                violations.add(
                        "bound GPU pod without an allocation", pod.getMetadata().getName() + " on " + node);
            }
            if (allocation != null) {
                add(held, node, allocation);
            }
            NodeState state = states.get(node);
            if (state != null) {
                states.put(
                        node,
                        with(
                                state,
                                PodHolding.of(node, PodResources.of(pod), allocation)
                                        .placements()));
            }
        }
        held.forEach((node, cards) -> overCapacity(node, cards, nodes.get(node)));
        pendingThatFit(pods, states);
        claims(pods);
    }

    /**
     * A claim whose pod holds cards must be Bound (or Lost, its card gone unhealthy) within {@link #CLAIM_BINDS}.
     * (A claim goes with its pod, as the users' Load deletes both.)
     */
    private void claims(List<Pod> pods) {
        List<ElasticGPUClaim> claims;
        try {
            claims = client.resources(ElasticGPUClaim.class)
                    .inNamespace(SoakCluster.NAMESPACE)
                    .list()
                    .getItems();
        } catch (KubernetesClientException e) {
            return;
        }
        Map<String, Pod> byName = new HashMap<>();
        pods.forEach(p -> byName.put(p.getMetadata().getName(), p));
        long now = System.nanoTime();
        Set<String> waiting = new HashSet<>();
        for (ElasticGPUClaim claim : claims) {
            String name = claim.getMetadata().getName();
            Pod pod = byName.get(name);
            Phase phase = claim.getStatus() == null ? null : claim.getStatus().getPhase();
            boolean holds = pod != null && !terminal(pod) && allocation(pod) != null;
            if (holds && phase != Phase.Bound && phase != Phase.Lost) {
                waiting.add(name);
                long since = claimSince.computeIfAbsent(name, k -> now);
                if (now - since > CLAIM_BINDS.toNanos() && reportedClaims.add(name)) {
                    violations.add(
                            "claim of a pod holding cards not Bound",
                            "%s is %s %d s after its pod got its cards"
                                    .formatted(name, phase, (now - since) / 1_000_000_000));
                }
            }
        }
        claimSince.keySet().retainAll(waiting);
    }

    private static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    static PodGrant allocation(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Annotations.ALLOCATION);
        return json == null ? null : PodGrant.fromJson(json);
    }

    private static boolean asksGpu(Pod pod) {
        return PodAsks.asksGpu(pod, PodAsks.Units.DEFAULT);
    }

    /** Milli and MiB held per card of {@code node}, also when the node was deleted under its pods. */
    private static void add(Map<String, long[][]> held, String node, PodGrant allocation) {
        long[][] cards = held.computeIfAbsent(node, k -> new long[16][2]);
        for (List<PodGrant.Share> shares : allocation.containers().values()) {
            for (PodGrant.Share s : shares) {
                cards[s.card()][0] += s.milli();
                cards[s.card()][1] += s.memoryMib();
            }
        }
    }

    private void overCapacity(String node, long[][] held, Node known) {
        for (int c = 0; c < held.length; c++) {
            Card card =
                    known != null && c < known.cards().size() ? known.cards().get(c) : null;
            long memory = card == null ? Long.MAX_VALUE : card.memoryMib();
            if (held[c][0] > Card.WHOLE || held[c][1] > memory) {
                violations.add(
                        "card above capacity",
                        "%s card %d holds %d milli, %d MiB (of %d MiB)"
                                .formatted(node, c, held[c][0], held[c][1], memory));
            }
        }
    }

    private void pendingThatFit(List<Pod> pods, Map<String, NodeState> states) {
        long now = System.nanoTime();
        Map<String, Long> still = new HashMap<>();
        for (Pod pod : pods) {
            String name = pod.getMetadata().getName();
            if (pod.getSpec().getNodeName() != null
                    || pod.getMetadata().getDeletionTimestamp() != null
                    || !fits(pod, states)) {
                continue;
            }
            long since = fitsSince.getOrDefault(name, now);
            still.put(name, since);
            if (now - since > FITS_BUT_PENDING.toNanos()) {
                violations.add(
                        "pod pending though a node fits it", name + " for " + (now - since) / 1_000_000_000 + " s");
                still.put(name, now); // counted again only after another full period
            }
        }
        fitsSince.clear();
        fitsSince.putAll(still);
    }

    private static boolean fits(Pod pod, Map<String, NodeState> states) {
        PodAsk ask;
        try {
            ask = PodAsk.of(pod, PodAsks.Units.DEFAULT);
        } catch (InvalidAskException e) {
            return false;
        }
        var asks = ask.asksGpu() ? ask.asks() : ask.hostOnly().asks();
        return asks.size() == 1 && states.values().stream().anyMatch(s -> s.check(asks.getFirst()) == Reason.FITS);
    }

    private static NodeState with(NodeState state, List<io.elasticgpu.core.model.Grant> placements) {
        try {
            return state.with(placements);
        } catch (IllegalStateException over) {
            return state; // counted by overCapacity
        }
    }

    /**
     * After the drain: waits up to {@code timeout} for the ElasticGPU objects and the ledgers' entries to go, and
     * records what is left.
     */
    void leftBehind(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long gpus;
        long entries;
        do {
            Soak.sleep(Duration.ofSeconds(2));
            gpus = client.resources(ElasticGPU.class)
                    .inAnyNamespace()
                    .list()
                    .getItems()
                    .size();
            entries = ledgerEntries();
        } while ((gpus > 0 || entries > 0) && System.nanoTime() < deadline);
        if (gpus > 0) {
            violations.add("ElasticGPU left after the drain", gpus + " objects");
        }
        if (entries > 0) {
            violations.add("ledger entry left after the drain", entries + " entries");
        }
    }

    private long ledgerEntries() {
        return client
                .configMaps()
                .inAnyNamespace()
                .withLabel(KubernetesClusterApi.LEDGER_LABEL)
                .list()
                .getItems()
                .stream()
                .map(ConfigMap::getData)
                .mapToLong(d -> Optional.ofNullable(d).map(Map::size).orElse(0))
                .sum();
    }
}
