package io.elasticgpu.controller.view;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.CardHolding;
import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds one {@link ClusterView}: reads inventories and usage, then allocations and DRA claims, then sums per card.
 * Single use.
 */
final class Census {

    private static final Comparator<Holder> HOLDER_ORDER =
            Comparator.comparing(Holder::namespace).thenComparing(Holder::pod).thenComparing(Holder::container);

    /** A DRA claim's holder is named {@code claim/<name>} where a pod's holder names its container. */
    private static final String DRA_CONTAINER_PREFIX = "claim/";

    private final Scope scope;
    private final ModelTable models;
    private final Precision precision;
    private final Map<String, Node> nodeObjects = new TreeMap<>();
    private final Map<String, NodeInventory> inventories = new TreeMap<>();
    /** What the node agents measured, of the nodes with a readable inventory and usage annotation. */
    private final Map<String, NodeUsage> usages = new HashMap<>();
    /** Every holder of each card, all namespaces: node → card index → holders. */
    private final Map<String, Map<Integer, List<Holder>>> holders = new TreeMap<>();

    private final Map<String, Map<Integer, Integer>> milliByCard = new HashMap<>(); // node -> card -> milli
    private final Set<String> podsHolding = new HashSet<>();
    private final List<PendingPod> pending = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();
    private int podsPending;

    Census(Scope scope, ModelTable models, Precision precision) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.models = Objects.requireNonNull(models, "models");
        this.precision = Objects.requireNonNull(precision, "precision");
    }

    ClusterView read(List<Node> nodes, List<Pod> pods, List<ResourceClaim> claims) {
        nodes.forEach(this::readNode);
        if (scope.node() != null && !inventories.containsKey(scope.node())) {
            throw new IllegalArgumentException("node %s has no readable GPU inventory; GPU nodes: %s"
                    .formatted(scope.node(), inventories.isEmpty() ? "none" : String.join(", ", inventories.keySet())));
        }
        pods.forEach(this::readPod);
        claims.forEach(this::readClaim);
        List<NodeView> views = inventories.keySet().stream()
                .filter(scope::showsNode)
                .map(this::nodeView)
                .toList();
        return new ClusterView(
                scope,
                summary(views),
                views,
                pending.stream()
                        .sorted(Comparator.comparing(PendingPod::namespace).thenComparing(PendingPod::pod))
                        .toList(),
                problems.stream().sorted(Comparator.comparing(Problem::object)).toList());
    }

    private void readNode(Node node) {
        String name = node.getMetadata().getName();
        String json = annotation(node, Annotations.INVENTORY);
        if (json == null) {
            if ("true".equals(label(node, NodeLabels.PRESENT)) && scope.showsNode(name)) {
                problem(
                        "node " + name,
                        "labelled %s=true but has no %s annotation; is the node agent running there?"
                                .formatted(NodeLabels.PRESENT, Annotations.INVENTORY));
            }
            return;
        }
        try {
            inventories.put(name, NodeInventory.fromJson(json));
            nodeObjects.put(name, node);
        } catch (IllegalArgumentException e) {
            if (scope.showsNode(name)) {
                problem("node " + name, e.getMessage());
            }
            return;
        }
        String usage = annotation(node, Annotations.USAGE);
        if (usage != null) {
            try {
                usages.put(name, NodeUsage.fromJson(usage));
            } catch (IllegalArgumentException e) {
                // Counted as not measured: what was granted is still known.
                if (scope.showsNode(name)) {
                    problem("node " + name, withoutParserLocation(e.getMessage()));
                }
            }
        }
    }

    private void readPod(Pod pod) {
        if (!CardHolding.holdsCards(pod)) {
            return;
        }
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String boundTo = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String json = annotation(pod, Annotations.ALLOCATION);
        if (json == null) {
            if ((boundTo == null || boundTo.isEmpty()) && PodAsks.asksGpu(pod, PodAsks.Units.DEFAULT)) {
                podsPending++;
                if (scope.showsNamespace(ns) && scope.node() == null) {
                    pending.add(new PendingPod(ns, name));
                }
            }
            return;
        }
        PodGrant allocation;
        try {
            allocation = PodGrant.fromJson(json);
        } catch (IllegalArgumentException e) {
            podProblem(ns, name, boundTo, withoutParserLocation(e.getMessage()));
            return;
        }
        String node = allocation.node();
        String mismatch = mismatch(allocation, boundTo);
        if (mismatch != null) {
            podProblem(ns, name, node, mismatch);
            return;
        }
        // A pod being deleted still holds its cards (CardHolding); the view says so instead of its last phase.
        String phase = CardHolding.terminating(pod)
                ? "terminating"
                : Objects.requireNonNullElse(annotation(pod, Annotations.PHASE), "unknown");
        allocation
                .containers()
                .forEach((container, shares) -> shares.forEach(share -> hold(
                        node,
                        share.card(),
                        new Holder(ns, name, container, share.memoryMib(), (share.milli() + 5) / 10, phase)
                                .withTflops(share),
                        share.milli())));
        if (scope.showsNode(node)) {
            podsHolding.add(ns + "/" + name);
        }
    }

    /**
     * A DRA claim kube-scheduler allocated on our cards (read by {@link DraShares}, as the node agent prepares it):
     * each
     * device it holds is one holder, named after the pods it is reserved for ({@code claim/<name>} as the container).
     */
    private void readClaim(ResourceClaim claim) {
        String ns = claim.getMetadata().getNamespace();
        String name = claim.getMetadata().getName();
        List<String> users = claim.getStatus() == null || claim.getStatus().getReservedFor() == null
                ? List.of()
                : claim.getStatus().getReservedFor().stream()
                        .filter(r -> "pods".equals(r.getResource()))
                        .map(ResourceClaimConsumerReference::getName)
                        .toList();
        String pod = users.isEmpty() ? "(no pod)" : String.join(",", users);
        for (DraShares.DraShare share : DraShares.of(claim)) {
            NodeInventory inventory = inventories.get(share.node());
            if (inventory == null
                    || share.card() < 0
                    || share.card() >= inventory.cards().size()) {
                if (scope.showsNamespace(ns)) {
                    problem(
                            "claim " + ns + "/" + name,
                            ("allocation names device %s of pool %s, which is no card of a node with a readable GPU "
                                            + "inventory")
                                    .formatted(share.device(), share.node()));
                }
                continue;
            }
            long memory =
                    share.wholeCard() ? inventory.cards().get(share.card()).memoryMib() : share.memoryMib();
            hold(
                    share.node(),
                    share.card(),
                    new Holder(ns, pod, DRA_CONTAINER_PREFIX + name, memory, (share.milli() + 5) / 10, "dra"),
                    share.milli());
            if (scope.showsNode(share.node())) {
                users.forEach(u -> podsHolding.add(ns + "/" + u));
            }
        }
    }

    /**
     * Counts {@code holder} on card {@code card} of {@code node}: its share in the list and its exact milli in the sum.
     * */
    private void hold(String node, int card, Holder holder, int milli) {
        holders.computeIfAbsent(node, n -> new TreeMap<>())
                .computeIfAbsent(card, c -> new ArrayList<>())
                .add(holder);
        milliByCard.computeIfAbsent(node, n -> new TreeMap<>()).merge(card, milli, Integer::sum);
    }

    /** Why an allocation cannot be counted on its node's cards, or null when it can. */
    private String mismatch(PodGrant allocation, String boundTo) {
        String node = allocation.node();
        NodeInventory inventory = inventories.get(node);
        if (inventory == null) {
            return "allocation names node %s, which has no readable GPU inventory".formatted(node);
        }
        if (boundTo != null && !boundTo.isEmpty() && !boundTo.equals(node)) {
            return "allocation names node %s but the pod is bound to %s".formatted(node, boundTo);
        }
        int count = inventory.cards().size();
        for (List<PodGrant.Share> shares : allocation.containers().values()) {
            for (PodGrant.Share share : shares) {
                if (share.card() < 0 || share.card() >= count) {
                    return "allocation names card %d on node %s, which has cards 0..%d"
                            .formatted(share.card(), node, count - 1);
                }
                String uuid = inventory.cards().get(share.card()).uuid();
                if (!uuid.equals(share.uuid())) {
                    return "allocation names card %d as %s, but card %d on node %s is %s"
                            .formatted(share.card(), share.uuid(), share.card(), node, uuid);
                }
            }
        }
        return null;
    }

    private NodeView nodeView(String name) {
        NodeInventory inventory = inventories.get(name);
        NodeUsage usage = usages.get(name);
        Map<Integer, List<Holder>> byCard = holders.getOrDefault(name, Map.of());
        List<CardView> cards = new ArrayList<>();
        for (NodeInventory.Card card : inventory.cards()) {
            List<Holder> all = byCard.getOrDefault(card.index(), List.of());
            List<NodeUsage.ContainerUsage> used = usage == null
                    ? List.of()
                    : usage.containers().stream()
                            .filter(u -> u.card() == card.index())
                            .toList();
            long memory = all.stream().mapToLong(Holder::memoryMib).sum();
            // Holders show rounded percents; the card's total and the over-commit check use the exact milli.
            int milli = milliByCard.getOrDefault(name, Map.of()).getOrDefault(card.index(), 0);
            int compute = (milli + 5) / 10;
            if (memory > card.memoryMib() || milli > 1000) {
                problem(
                        "node " + name,
                        "card %d is over-committed: %d/%d MiB, %d/100%% compute"
                                .formatted(card.index(), memory, card.memoryMib(), compute));
            }
            List<Holder> shown = all.stream()
                    .filter(h -> scope.showsNamespace(h.namespace()))
                    .sorted(HOLDER_ORDER)
                    .map(h -> usage == null ? h : withUse(h, used))
                    .toList();
            long memoryUsed = usage == null
                    ? -1
                    : used.stream()
                                    .mapToLong(NodeUsage.ContainerUsage::memoryMib)
                                    .sum()
                            + usage.unattributed().stream()
                                    .filter(u -> u.card() == card.index())
                                    .mapToLong(NodeUsage.Unattributed::memoryMib)
                                    .sum();
            cards.add(new CardView(
                    card.index(),
                    card.uuid(),
                    card.model(),
                    card.healthy(),
                    card.healthy() ? null : card.reason(),
                    memory,
                    memoryUsed,
                    card.memoryMib(),
                    compute,
                    100,
                    usage == null ? null : usage.measured(),
                    FreeTflops.of(models.free(card.model(), milli, precision)),
                    shown));
        }
        Set<String> models = new java.util.TreeSet<>(
                inventory.cards().stream().map(NodeInventory.Card::model).toList());
        String model = models.size() == 1 ? models.iterator().next() : models.isEmpty() ? "none" : "mixed";
        String driver = Objects.requireNonNullElse(label(nodeObjects.get(name), NodeLabels.DRIVER), "");
        return new NodeView(name, model, driver, NvlinkIslands.of(inventory), healthyFree(cards), cards);
    }

    /**
     * {@code holder} with what its container uses on the card, from {@code used} (the card's measured containers): a
     * DRA claim's holder, everything the pods it is reserved for use there. A holder none of whose processes runs
     * there uses 0 MiB at 0 % SM; SM is unknown (-1) when NVML named none of the processes of an entry counted.
     */
    private static Holder withUse(Holder holder, List<NodeUsage.ContainerUsage> used) {
        boolean claim = holder.container().startsWith(DRA_CONTAINER_PREFIX);
        Set<String> pods = claim ? new HashSet<>(List.of(holder.pod().split(","))) : Set.of(holder.pod());
        List<NodeUsage.ContainerUsage> its = used.stream()
                .filter(u -> u.namespace().equals(holder.namespace())
                        && pods.contains(u.pod())
                        && (claim || u.container().equals(holder.container())))
                .toList();
        long memory =
                its.stream().mapToLong(NodeUsage.ContainerUsage::memoryMib).sum();
        int sm = its.stream().anyMatch(u -> u.smPercent() < 0)
                ? -1
                : its.stream().mapToInt(NodeUsage.ContainerUsage::smPercent).sum();
        return holder.withUse(memory, sm);
    }

    /** The free TFLOPS of the healthy {@code cards}, summed. */
    private FreeTflops healthyFree(List<CardView> cards) {
        return FreeTflops.sum(
                precision.label(),
                cards.stream()
                        .filter(CardView::healthy)
                        .map(CardView::freeTflops)
                        .toList());
    }

    private Summary summary(List<NodeView> views) {
        List<CardView> cards = views.stream().flatMap(n -> n.cards().stream()).toList();
        return new Summary(
                views.size(),
                cards.size(),
                (int) cards.stream().filter(c -> !c.healthy()).count(),
                cards.stream().mapToLong(CardView::memoryGrantedMib).sum(),
                cards.stream().mapToLong(CardView::memoryTotalMib).sum(),
                cards.stream().mapToLong(CardView::computeGrantedPercent).sum(),
                cards.stream().mapToLong(CardView::computeTotalPercent).sum(),
                podsHolding.size(),
                podsPending,
                healthyFree(cards));
    }

    private void podProblem(String ns, String name, String node, String reason) {
        if (scope.showsNamespace(ns) && (scope.node() == null || scope.node().equals(node))) {
            problem("pod " + ns + "/" + name, reason);
        }
    }

    private void problem(String object, String reason) {
        problems.add(new Problem(object, reason));
    }

    /** Jackson's "(start marker at [Source: …; line: 1, column: 34])" says nothing a person can act on. */
    private static String withoutParserLocation(String message) {
        return message.replaceAll("(?s)\\s*\\(start marker at \\[Source:.*$", "")
                .replaceAll("(?s)\\s*at \\[Source:.*$", "");
    }

    private static String annotation(HasMetadata object, String key) {
        Map<String, String> annotations = object.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(key);
    }

    private static String label(HasMetadata object, String key) {
        Map<String, String> labels = object.getMetadata().getLabels();
        return labels == null ? null : labels.get(key);
    }
}
