package io.elasticgpu.controller.dashboard;

import io.elasticgpu.api.v1alpha1.DraApi;
import io.elasticgpu.api.watch.OnChange;
import io.elasticgpu.controller.view.ClusterView;
import io.elasticgpu.controller.view.Scope;
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

    private ClusterWatch(KubernetesClient client) {
        this.nodes = counted(client.nodes().runnableInformer(0));
        this.pods = counted(client.pods().inAnyNamespace().runnableInformer(0));
        this.claims = DraApi.served(client)
                ? counted(client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0))
                : null;
    }

    /** Starts the informers and returns at once; {@link #synced()} tells when their first lists are in. */
    public static ClusterWatch start(KubernetesClient client) {
        ClusterWatch watch = new ClusterWatch(client);
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
                    Scope.ALL);
            builtAt = seen;
        }
        return view;
    }

    private <T extends HasMetadata> SharedIndexInformer<T> counted(SharedIndexInformer<T> informer) {
        informer.addEventHandler(new OnChange<>(changes::incrementAndGet));
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
