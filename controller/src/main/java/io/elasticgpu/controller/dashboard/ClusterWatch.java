package io.elasticgpu.controller.dashboard;

import io.elasticgpu.api.v1alpha1.DraApi;
import io.elasticgpu.api.watch.Informers;
import io.elasticgpu.api.watch.OnChange;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.Scope;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.core.model.Precision;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Nodes, pods and (where the API server serves {@code resource.k8s.io/v1}) ResourceClaims as the API server has them,
 * kept by informers, and the {@link ClusterView} of them. The view is built again only after an informer saw a
 * change, so many browsers and scrapes between two events cost one build.
 */
public final class ClusterWatch implements Supplier<ClusterView>, AutoCloseable {

    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    /** Null on a cluster without DRA's v1 API (before Kubernetes 1.34): no claim can hold a card there. */
    private final SharedIndexInformer<ResourceClaim> claims;

    private final AtomicLong changes = new AtomicLong();
    private long builtAt = -1;
    private ClusterView view;

    private final ModelTable models;

    private ClusterWatch(KubernetesClient client, ModelTable models) {
        this.models = models;
        this.nodes = counted(client.nodes().runnableInformer(0));
        this.pods = counted(client.pods().inAnyNamespace().runnableInformer(0));
        this.claims = DraApi.served(client)
                ? counted(client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0))
                : null;
    }

    /** Starts the informers and returns at once; {@link #synced()} tells when their first lists are in. */
    public static ClusterWatch start(KubernetesClient client) {
        return start(client, ModelTable.shipped());
    }

    /** The same, counting free TFLOPS (in the default precision) with {@code models}. */
    public static ClusterWatch start(KubernetesClient client, ModelTable models) {
        ClusterWatch watch = new ClusterWatch(client, java.util.Objects.requireNonNull(models, "models"));
        watch.nodes.start();
        watch.pods.start();
        if (watch.claims != null) {
            watch.claims.start();
        }
        return watch;
    }

    public boolean synced() {
        return nodes.hasSynced() && pods.hasSynced() && (claims == null || claims.hasSynced());
    }

    /** The view of every node and namespace; empty until {@link #synced()}. */
    @Override
    public synchronized ClusterView get() {
        long seen = changes.get();
        if (view == null || seen != builtAt) {
            view = ClusterView.of(
                    nodes.getStore().list(),
                    pods.getStore().list(),
                    claims == null ? List.of() : claims.getStore().list(),
                    Scope.ALL,
                    models,
                    Precision.DEFAULT);
            builtAt = seen;
        }
        return view;
    }

    private <T extends HasMetadata> SharedIndexInformer<T> counted(SharedIndexInformer<T> informer) {
        Informers.ours(informer).addEventHandler(new OnChange<>(changes::incrementAndGet));
        return informer;
    }

    @Override
    public void close() {
        nodes.close();
        pods.close();
        if (claims != null) {
            claims.close();
        }
    }
}
