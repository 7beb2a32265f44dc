package io.elasticgpu.scheduler;

import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Kubernetes objects for scheduler tests: GPU nodes with an inventory, pods with GPU limits. */
public final class K8s {

    private K8s() {}

    /** A node of {@code cards} healthy cards of {@code memoryMib} each; NVLink islands of {@code island} (0: none). */
    public static Node node(String name, int cards, long memoryMib, int island) {
        List<NodeInventory.Card> list = new ArrayList<>();
        for (int i = 0; i < cards; i++) {
            list.add(new NodeInventory.Card(i, "GPU-" + name + "-" + i, "A100", memoryMib, true, 0));
        }
        List<NodeInventory.Link> links = new ArrayList<>();
        for (int start = 0; island > 0 && start < cards; start += island) {
            for (int a = start; a < Math.min(cards, start + island); a++) {
                for (int b = a + 1; b < Math.min(cards, start + island); b++) {
                    links.add(new NodeInventory.Link(a, b, "NVLINK", 12));
                }
            }
        }
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(Annotations.INVENTORY, new NodeInventory(list, links).toJson())
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity("64"))
                .addToAllocatable("memory", new Quantity("512Gi"))
                .addToAllocatable("pods", new Quantity("110"))
                .endStatus()
                .build();
    }

    /** A container asking {@code limits} (resource name to amount). */
    public static Container container(String name, Map<String, String> limits) {
        Map<String, Quantity> q = new LinkedHashMap<>();
        limits.forEach((k, v) -> q.put(k, new Quantity(v)));
        return new ContainerBuilder()
                .withName(name)
                .withImage("x")
                .withNewResources()
                .withLimits(q)
                .endResources()
                .build();
    }

    public static Pod pod(String namespace, String name, String uid, Container... containers) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .withNewSpec()
                .withContainers(containers)
                .endSpec()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build();
    }

    /** The same pod bound to {@code node} with {@code allocation} annotated (null: none). */
    public static Pod bound(Pod pod, String node, PodGrant allocation) {
        PodBuilder b = new PodBuilder(pod).editSpec().withNodeName(node).endSpec();
        if (allocation != null) {
            b.editMetadata()
                    .addToAnnotations(Annotations.ALLOCATION, allocation.toJson())
                    .endMetadata();
        }
        return b.build();
    }

    /** A ResourceClaim asking one card of ours with {@code memory} (a quantity, e.g. {@code 4Gi}) on it. */
    public static ResourceClaim claim(String namespace, String name, String uid, String memory) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("gpu")
                .withNewExactly()
                .withDeviceClassName(DraNames.DRIVER)
                .withNewCapacity()
                .addToRequests(DraNames.MEMORY, new Quantity(memory))
                .endCapacity()
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .build();
    }

    /**
     * The same claim as kube-scheduler allocates it: {@code memoryMib} of card {@code card} of {@code node}, for a pod.
     * */
    public static ResourceClaim allocated(ResourceClaim claim, String node, int card, long memoryMib, String podUid) {
        return new ResourceClaimBuilder(claim)
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .addNewResult()
                .withDriver(DraNames.DRIVER)
                .withPool(node)
                .withDevice(DraNames.deviceName(card))
                .withRequest("gpu")
                .withShareID("share-" + card)
                .addToConsumedCapacity(DraNames.MEMORY, new Quantity(memoryMib + "Mi"))
                .endResult()
                .endDevices()
                .endAllocation()
                .addNewReservedFor()
                .withResource("pods")
                .withName("p")
                .withUid(podUid)
                .endReservedFor()
                .endStatus()
                .build();
    }

    /** A pod using ResourceClaim {@code claim} in its one container. */
    public static Pod draPod(String namespace, String name, String uid, String claim) {
        return new PodBuilder(pod(namespace, name, uid, container("main", Map.of("cpu", "1"))))
                .editSpec()
                .addNewResourceClaim()
                .withName("gpu")
                .withResourceClaimName(claim)
                .endResourceClaim()
                .endSpec()
                .build();
    }
}
