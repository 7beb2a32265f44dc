package io.elasticgpu.controller.dashboard;

import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.Summary;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The controller's Prometheus metrics, all read at scrape time: whether this replica leads, how many syncs it ran, and
 * the cluster as the API server records it (allocations from pod annotations, not the extender's cache), so that an
 * alert on {@code egpu_cluster_view_problems} catches over-commits and unreadable annotations whoever wrote them.
 */
public final class ControllerMetrics {

    private final PrometheusRegistry registry = new PrometheusRegistry();

    public ControllerMetrics(Supplier<ClusterView> view, BooleanSupplier leader, LongSupplier syncs) {
        GaugeWithCallback.builder()
                .name("egpu_controller_leader")
                .help("1 when this replica holds the controller's Lease")
                .callback(cb -> cb.call(leader.getAsBoolean() ? 1 : 0))
                .register(registry);
        CounterWithCallback.builder()
                .name("egpu_controller_syncs")
                .help("Syncs of ElasticGPUs and claims this replica ran")
                .callback(cb -> cb.call(syncs.getAsLong()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("egpu_cluster_cards")
                .help("GPU cards by health, from the nodes' inventories")
                .labelNames("health")
                .callback(cb -> {
                    Summary s = view.get().summary();
                    cb.call(s.cards() - s.unhealthyCards(), "healthy");
                    cb.call(s.unhealthyCards(), "unhealthy");
                })
                .register(registry);
        gauge(
                "egpu_cluster_gpu_memory_allocated_mib",
                "GPU memory held by pods, from their allocations",
                view,
                s -> s.memoryGrantedMib());
        gauge("egpu_cluster_gpu_memory_capacity_mib", "GPU memory of every card", view, s -> s.memoryCapacityMib());
        gauge(
                "egpu_cluster_gpu_compute_allocated_percent",
                "Compute held by pods, 100 per card",
                view,
                s -> s.computeGrantedPercent());
        gauge(
                "egpu_cluster_gpu_compute_capacity_percent",
                "Compute of every card, 100 per card",
                view,
                s -> s.computeCapacityPercent());
        gauge("egpu_cluster_pods_holding_gpus", "Pods that hold a share of a card", view, s -> s.podsHoldingCards());
        gauge("egpu_cluster_pods_pending_gpus", "Pods that ask GPUs and are not bound", view, s -> s.podsPending());
        GaugeWithCallback.builder()
                .name("egpu_cluster_view_problems")
                .help("Unreadable inventories or allocations, and cards holding more than they have")
                .callback(cb -> cb.call(view.get().problems().size()))
                .register(registry);
    }

    private interface Figure {
        long of(Summary summary);
    }

    private void gauge(String name, String help, Supplier<ClusterView> view, Figure figure) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .callback(cb -> cb.call(figure.of(view.get().summary())))
                .register(registry);
    }

    PrometheusRegistry registry() {
        return registry;
    }
}
