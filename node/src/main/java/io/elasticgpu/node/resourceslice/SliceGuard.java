package io.elasticgpu.node.resourceslice;

import io.elasticgpu.api.watch.Informers;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's ResourceSlice as the agent published it. The slice is the only record kube-scheduler allocates
 * from, so a hand edit (a capacity raised, a taint removed from a failing card) or a deletion would let it hand out
 * what the cards do not have; the agent watches its one slice and writes its own devices back, with a warning that
 * says what was changed. Our own writes come back as events with the same devices and are left alone.
 */
public final class SliceGuard implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SliceGuard.class);

    private final SlicePublisher publisher;
    private final AtomicReference<List<Device>> published = new AtomicReference<>();
    private final SharedIndexInformer<ResourceSlice> informer;

    public SliceGuard(KubernetesClient client, String node) {
        this.publisher = new SlicePublisher(client, node);
        this.informer = Informers.ours(client.resources(ResourceSlice.class)
                .withField("metadata.name", SlicePublisher.sliceName(node))
                .runnableInformer(0));
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ResourceSlice slice) {
                restoreIfChanged(slice);
            }

            @Override
            public void onUpdate(ResourceSlice old, ResourceSlice slice) {
                restoreIfChanged(slice);
            }

            @Override
            public void onDelete(ResourceSlice slice, boolean unknownFinalState) {
                List<Device> devices = published.get();
                if (devices != null && publisher.publish(devices)) {
                    LOG.warn(
                            "ResourceSlice {} was deleted by someone else; published it again",
                            slice.getMetadata().getName());
                }
            }
        });
    }

    /** Publishes {@code devices} and, from the first call on, keeps them published. */
    public void publish(List<Device> devices) {
        published.set(List.copyOf(devices));
        publisher.publish(devices);
        synchronized (this) {
            if (!informer.isRunning()) {
                informer.start();
            }
        }
    }

    private void restoreIfChanged(ResourceSlice slice) {
        List<Device> devices = published.get();
        // An event may also be the echo of our own earlier write, arriving after a newer publish: the slice then
        // differs from what we published last, but the API server already holds that, and nothing is written.
        if (devices != null
                && slice.getSpec() != null
                && !SlicePublisher.same(slice.getSpec().getDevices(), devices)
                && publisher.publish(devices)) {
            LOG.warn(
                    "ResourceSlice {} was changed by someone else (its devices differed from the cards' state); wrote"
                            + " the agent's devices back. Change the cards' health through the agent, not the slice",
                    slice.getMetadata().getName());
        }
    }

    @Override
    public synchronized void close() {
        informer.close();
    }
}
