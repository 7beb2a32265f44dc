package io.elasticgpu.node.resourceslice;

import io.elasticgpu.api.v1alpha1.DraNames;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the node's one ResourceSlice (named {@code <node>-gpu.elasticgpu.io}, pool = node name, owned by the Node so
 * that deleting the node deletes it). Each change of devices is a new pool generation, so the allocator never mixes
 * an old slice with a new one. Thread-safe; a failed write is logged and the next change or restart writes again.
 */
public final class SlicePublisher {

    private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

    private final KubernetesClient client;
    private final String node;

    public SlicePublisher(KubernetesClient client, String node) {
        this.client = client;
        this.node = node;
    }

    public static String sliceName(String node) {
        return node + "-" + DraNames.DRIVER;
    }

    /** @return whether it wrote the slice: it was missing or held other devices (false too when the write failed) */
    public synchronized boolean publish(List<Device> devices) {
        try {
            ResourceSlice current = slices().withName(sliceName(node)).get();
            if (current == null) {
                slices().resource(slice(node, devices, 0, owner())).create();
                return true;
            }
            if (!same(current.getSpec().getDevices(), devices)) {
                long generation = current.getSpec().getPool().getGeneration() + 1;
                current.setSpec(slice(node, devices, generation, null).getSpec());
                slices().resource(current)
                        .update(); // optimistic: a concurrent hand edit makes this fail, and it is logged
                return true;
            }
            return false;
        } catch (KubernetesClientException e) {
            LOG.error(
                    "cannot publish the ResourceSlice of node {}: {}; kube-scheduler keeps allocating from the "
                            + "last one",
                    node,
                    e.getMessage());
            return false;
        }
    }

    /**
     * Whether two device lists say the same, ignoring what the API server fills in itself: a taint's
     * {@code timeAdded}, set on every write that leaves it out. Comparing with it would see each echo of our own
     * write as a change and write again, forever, while any card is tainted.
     */
    public static boolean same(List<Device> a, List<Device> b) {
        return Objects.equals(withoutTimes(a), withoutTimes(b));
    }

    private static List<Device> withoutTimes(List<Device> devices) {
        if (devices == null) {
            return null;
        }
        return devices.stream()
                .map(d -> {
                    Device copy = new DeviceBuilder(d).build();
                    if (copy.getTaints() != null) {
                        copy.getTaints().forEach(t -> t.setTimeAdded(null));
                    }
                    return copy;
                })
                .toList();
    }

    /**
     * Deletes the slice: a node whose cards are offered through the device plugin must not offer them through DRA too.
     * */
    public synchronized void withdraw() {
        try {
            slices().withName(sliceName(node)).delete();
        } catch (KubernetesClientException e) {
            LOG.error(
                    "cannot delete the ResourceSlice of node {}: {}; delete it by hand so its cards are not offered "
                            + "twice",
                    node,
                    e.getMessage());
        }
    }

    /** The one slice of {@code node}'s pool, owned by the Node object when it is given (deleted with it). */
    public static ResourceSlice slice(String node, List<Device> devices, long generation, Node owner) {
        ResourceSliceBuilder b = new ResourceSliceBuilder()
                .withNewMetadata()
                .withName(sliceName(node))
                .endMetadata()
                .withNewSpec()
                .withDriver(DraNames.DRIVER)
                .withNodeName(node)
                .withNewPool()
                .withName(node)
                .withGeneration(generation)
                .withResourceSliceCount(1L)
                .endPool()
                .withDevices(devices)
                .endSpec();
        if (owner != null) {
            b.editMetadata()
                    .withOwnerReferences(new OwnerReferenceBuilder()
                            .withApiVersion("v1")
                            .withKind("Node")
                            .withName(node)
                            .withUid(owner.getMetadata().getUid())
                            .build())
                    .endMetadata();
        }
        return b.build();
    }

    private Node owner() {
        return client.nodes().withName(node).get();
    }

    private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
                    ResourceSlice,
                    io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList,
                    io.fabric8.kubernetes.client.dsl.Resource<ResourceSlice>>
            slices() {
        return client.resources(
                ResourceSlice.class, io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList.class);
    }
}
