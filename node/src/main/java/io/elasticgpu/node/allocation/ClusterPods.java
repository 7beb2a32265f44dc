package io.elasticgpu.node.allocation;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.CardHolding;
import io.elasticgpu.api.v1alpha1.GpuAsk;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.elasticgpu.api.v1alpha1.KubeletAllocate;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.watch.Informers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pods bound to this node, watched through an informer restricted to {@code spec.nodeName}, as
 * {@link NodePod}s. Pods that ended or are being deleted are left out: they hold nothing kubelet will allocate.
 */
public final class ClusterPods implements PodSource, AutoCloseable {

    private final KubernetesClient client;
    private final String node;
    private final PodAsks.Units units;
    private final SharedIndexInformer<Pod> informer;
    private final ConvertedPods converted;

    public ClusterPods(KubernetesClient client, String node, PodAsks.Units units) {
        this.client = client;
        this.node = node;
        this.units = units;
        this.converted = new ConvertedPods(p -> of(p, node, units));
        this.informer = Informers.ours(
                client.pods().inAnyNamespace().withField("spec.nodeName", node).runnableInformer(0));
        informer.run();
    }

    @Override
    public List<NodePod> pods() {
        return convert(informer.getStore().list());
    }

    @Override
    public List<NodePod> refresh() {
        return convert(client.pods()
                .inAnyNamespace()
                .withField("spec.nodeName", node)
                .list()
                .getItems());
    }

    private List<NodePod> convert(List<Pod> pods) {
        return converted.of(pods);
    }

    /** The pod as allocation sees it, if it is alive and asks for GPUs in a way that can be read. */
    public static Optional<NodePod> of(Pod p, String node, PodAsks.Units units) {
        if (!CardHolding.holdsCards(p)) {
            return Optional.empty();
        }
        Map<String, GpuAsk.Family> families = new HashMap<>();
        try {
            PodAsks.of(p, units).forEach(a -> families.put(a.container(), a.family()));
        } catch (InvalidAskException e) {
            return Optional.empty();
        }
        if (families.isEmpty()) {
            return Optional.empty();
        }
        List<NodePod.Container> containers = new ArrayList<>();
        List<Container> ordered = PodAsks.containers(p);
        int inits = nullSafe(p.getSpec().getInitContainers()).size();
        for (int i = 0; i < ordered.size(); i++) {
            Container c = ordered.get(i);
            GpuAsk.Family family = families.get(c.getName());
            if (family != null) {
                boolean init = i < inits && !"Always".equals(c.getRestartPolicy());
                containers.add(new NodePod.Container(c.getName(), KubeletAllocate.advertised(c, units), family, init));
            }
        }
        Map<String, String> a = p.getMetadata().getAnnotations() == null
                ? Map.of()
                : p.getMetadata().getAnnotations();
        Optional<PodGrant> plan =
                Optional.ofNullable(a.get(Annotations.ALLOCATION)).flatMap(json -> parse(json, node));
        return Optional.of(new NodePod(
                p.getMetadata().getUid(),
                p.getMetadata().getNamespace(),
                p.getMetadata().getName(),
                assumeTime(a.get(Annotations.ASSUME_TIME)),
                plan,
                Annotations.allocated(p),
                containers,
                Optional.ofNullable(a.get(MpsLimits.PROCESSES_ANNOTATION)),
                containerIds(p),
                ownShm(ordered)));
    }

    /** The containers that mount a volume at {@code /dev/shm}: the pod brings its own shared memory there. */
    static Set<String> ownShm(List<Container> containers) {
        Set<String> out = new java.util.HashSet<>();
        for (Container c : containers) {
            for (var m : nullSafe(c.getVolumeMounts())) {
                if ("/dev/shm".equals(m.getMountPath()) || "/dev/shm/".equals(m.getMountPath())) {
                    out.add(c.getName());
                }
            }
        }
        return out;
    }

    /** Running containers' runtime ids (the part after {@code <runtime>://}) → container names. */
    public static Map<String, String> containerIds(Pod p) {
        Map<String, String> out = new HashMap<>();
        if (p.getStatus() != null) {
            for (var list : List.of(
                    nullSafe(p.getStatus().getContainerStatuses()),
                    nullSafe(p.getStatus().getInitContainerStatuses()))) {
                for (var status : list) {
                    String id = status.getContainerID();
                    if (id != null && !id.isEmpty()) {
                        out.put(id.substring(id.indexOf("://") + (id.contains("://") ? 3 : 0)), status.getName());
                    }
                }
            }
        }
        return out;
    }

    /**
     * The cards of {@code node} that its pods of the device plugin path hold ({@link CardHolding}): those their
     * allocation annotation names. A pod asking our resources without one holds nothing yet (kubelet has not admitted
     * it).
     */
    public static Set<Integer> heldCards(Collection<Pod> pods, String node, PodAsks.Units units) {
        Set<Integer> cards = new TreeSet<>();
        for (Pod p : pods) {
            of(p, node, units).flatMap(NodePod::plan).ifPresent(plan -> cards.addAll(plan.cards()));
        }
        return cards;
    }

    private static Optional<PodGrant> parse(String json, String node) {
        try {
            PodGrant allocation = PodGrant.fromJson(json);
            return node.equals(allocation.node()) ? Optional.of(allocation) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static long assumeTime(String value) {
        try {
            return value == null ? Long.MAX_VALUE : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private static <T> List<T> nullSafe(List<T> list) {
        return list == null ? List.of() : list;
    }

    @Override
    public void close() {
        informer.close();
    }
}
