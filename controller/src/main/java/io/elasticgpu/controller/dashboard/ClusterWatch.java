package io.elasticgpu.controller.dashboard;

import io.elasticgpu.controller.view.ClusterView;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Nodes and pods as the API server has them, kept by two informers, and the {@link ClusterView} of them. The view is
 * built again only after an informer saw a change, so many browsers and scrapes between two events cost one build.
 */
public final class ClusterWatch implements Supplier<ClusterView>, AutoCloseable {

    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    private final AtomicLong changes = new AtomicLong();
    private long builtAt = -1;
    private ClusterView view;

    private ClusterWatch(KubernetesClient client) {
        this.nodes = counted(client.nodes().runnableInformer(0));
        this.pods = counted(client.pods().inAnyNamespace().runnableInformer(0));
    }

    /** Starts both informers and returns at once; {@link #synced()} tells when their first lists are in. */
    public static ClusterWatch start(KubernetesClient client) {
        ClusterWatch watch = new ClusterWatch(client);
        watch.nodes.start();
        watch.pods.start();
        return watch;
    }

    public boolean synced() {
        return nodes.hasSynced() && pods.hasSynced();
    }

    /** The view of every node and namespace; empty until {@link #synced()}. */
    @Override
    public synchronized ClusterView get() {
        long seen = changes.get();
        if (view == null || seen != builtAt) {
            view = ClusterView.of(nodes.getStore().list(), pods.getStore().list());
            builtAt = seen;
        }
        return view;
    }

    private <T extends HasMetadata> SharedIndexInformer<T> counted(SharedIndexInformer<T> informer) {
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                changes.incrementAndGet();
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                changes.incrementAndGet();
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                changes.incrementAndGet();
            }
        });
        return informer;
    }

    @Override
    public void close() {
        nodes.close();
        pods.close();
    }
}
