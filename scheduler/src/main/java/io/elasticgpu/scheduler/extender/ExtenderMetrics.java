package io.elasticgpu.scheduler.extender;

import io.elasticgpu.core.snapshot.NodeState;
import io.elasticgpu.scheduler.binding.Binder;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;

/**
 * The extender's Prometheus metrics: latency per verb, decisions and failures by reason, and what every card holds.
 * Card gauges are computed from the cache at scrape time.
 */
final class ExtenderMetrics {

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram latency = Histogram.builder()
            .name("egpu_extender_request_seconds")
            .help("Time to answer one extender call, by verb")
            .labelNames("verb")
            .classicOnly()
            .classicUpperBounds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)
            .register(registry);
    private final Counter decisions = Counter.builder()
            .name("egpu_extender_decisions_total")
            .help("Extender calls by verb and result")
            .labelNames("verb", "result")
            .register(registry);
    private final Counter failures = Counter.builder()
            .name("egpu_extender_node_failures_total")
            .help("Nodes the filter refused, by reason")
            .labelNames("reason")
            .register(registry);
    private final Counter preemptionNodes = Counter.builder()
            .name("egpu_extender_preemption_nodes_total")
            .help("Candidate nodes the preempt verb answered, by outcome: victims (a set of ours), as_proposed"
                    + " (kube-scheduler's own victims stand), dropped (no eviction lets the pod fit)")
            .labelNames("outcome")
            .register(registry);
    private final Counter preemptionVictims = Counter.builder()
            .name("egpu_extender_preemption_victims_total")
            .help("Pods the preempt verb named as victims, over all candidate nodes (kube-scheduler evicts those of"
                    + " the one node it picks)")
            .register(registry);
    private final Counter held = Counter.builder()
            .name("egpu_extender_binds_held_total")
            .help("Binds put off while a pod kubelet could not tell from the one bound waits for admission on the node")
            .register(registry);

    /** @param ledger the binder's ledger writes and conflicts so far */
    ExtenderMetrics(ClusterCache cache, Binder ledger) {
        CounterWithCallback.builder()
                .name("egpu_extender_ledger_writes_total")
                .help("Writes of nodes' ledgers (binds reserving cards, undoing a failed bind, tidying)")
                .callback(cb -> cb.call(ledger.ledgerWrites()))
                .register(registry);
        CounterWithCallback.builder()
                .name("egpu_extender_ledger_conflicts_total")
                .help("Ledger writes refused because another write to the node's ledger came first")
                .callback(cb -> cb.call(ledger.ledgerConflicts()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_card_memory_allocated_mib")
                .help("GPU memory held on a card")
                .labelNames("node", "card", "model")
                .callback(cb -> each(
                        cache,
                        (node, s, i) -> cb.call(
                                s.usedMemory(i),
                                node,
                                Integer.toString(i),
                                s.card(i).model())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_card_memory_capacity_mib")
                .help("GPU memory of a card")
                .labelNames("node", "card", "model")
                .callback(cb -> each(
                        cache,
                        (node, s, i) -> cb.call(
                                s.card(i).memoryMib(),
                                node,
                                Integer.toString(i),
                                s.card(i).model())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_card_core_allocated_percent")
                .help("Compute held on a card, percent")
                .labelNames("node", "card", "model")
                .callback(cb -> each(
                        cache,
                        (node, s, i) -> cb.call(
                                s.usedMilli(i) / 10.0,
                                node,
                                Integer.toString(i),
                                s.card(i).model())))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_cards")
                .help("Cards in the cluster by state")
                .labelNames("state")
                .callback(cb -> {
                    long healthy = 0;
                    long unhealthy = 0;
                    long used = 0;
                    for (NodeState s : cache.snapshot().states().values()) {
                        for (int i = 0; i < s.cardCount(); i++) {
                            if (s.card(i).healthy()) {
                                healthy++;
                            } else {
                                unhealthy++;
                            }
                            if (!s.idle(i)) {
                                used++;
                            }
                        }
                    }
                    cb.call(healthy, "healthy");
                    cb.call(unhealthy, "unhealthy");
                    cb.call(used, "allocated");
                })
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_pods_unaccounted")
                .help("Bound GPU pods without an allocation annotation")
                .callback(cb -> cb.call(cache.snapshot().unaccounted()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_pods_waiting_to_be_counted")
                .help("Pods seen on cards whose previous holder's deletion this replica has not seen yet")
                .callback(cb -> cb.call(cache.snapshot().waitingToBeCounted()))
                .register(registry);
    }

    private interface CardVisitor {
        void visit(String node, NodeState state, int card);
    }

    private static void each(ClusterCache cache, CardVisitor visitor) {
        for (Map.Entry<String, NodeState> e : cache.snapshot().states().entrySet()) {
            for (int i = 0; i < e.getValue().cardCount(); i++) {
                visitor.visit(e.getKey(), e.getValue(), i);
            }
        }
    }

    void observe(String verb, long startNanos, String result) {
        latency.labelValues(verb).observe((System.nanoTime() - startNanos) / 1e9);
        decisions.labelValues(verb, result).inc();
    }

    void held() {
        held.inc();
    }

    /** One candidate node answered by the preempt verb: its outcome, and how many victims were named there. */
    void preempted(String outcome, int victims) {
        preemptionNodes.labelValues(outcome).inc();
        preemptionVictims.inc(victims);
    }

    void failed(String reason, int nodes) {
        failures.labelValues(reason).inc(nodes);
    }

    PrometheusRegistry registry() {
        return registry;
    }
}
