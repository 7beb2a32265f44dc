package io.elasticgpu.node.dra;

import io.elasticgpu.api.v1alpha1.DraAsks;
import io.elasticgpu.api.v1alpha1.DraNames;
import io.elasticgpu.api.v1alpha1.DraShares;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.node.discovery.Hardware;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads claims from the API server and turns their allocation into {@link ClaimDevice}s: the results of our driver
 * on this node's pool, with the consumed capacity (a result without it, from a device that allows one allocation,
 * holds the whole card). The claim is read at prepare time because kubelet sends only its name and UID.
 */
public final class ApiClaims implements ClaimSource {

    private final KubernetesClient client;
    private final String pool;
    private final Hardware hardware;

    public ApiClaims(KubernetesClient client, String pool, Hardware hardware) {
        this.client = client;
        this.pool = pool;
        this.hardware = hardware;
    }

    @Override
    public AllocatedClaim allocated(ClaimRef ref) {
        ResourceClaim claim;
        try {
            claim = client.resources(ResourceClaim.class)
                    .inNamespace(ref.namespace())
                    .withName(ref.name())
                    .get();
        } catch (KubernetesClientException e) {
            throw new ClaimException("claim %s: cannot read it from the API server: %s".formatted(ref, e.getMessage()));
        }
        List<ClaimDevice> devices = devices(ref, claim, pool, hardware);
        if (devices.stream().map(d -> topRequest(d.request())).distinct().count() > 1) {
            oneRequestPerContainer(ref, claim, consumers(claim)).ifPresent(why -> {
                throw new ClaimException(why);
            });
        }
        var annotations = claim.getMetadata().getAnnotations();
        String processes = annotations == null ? null : annotations.get(MpsLimits.PROCESSES_ANNOTATION);
        return new AllocatedClaim(devices, processes == null ? "1" : processes);
    }

    @Override
    public List<ClaimRef> held() {
        List<Pod> pods;
        try {
            pods = client.pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", pool)
                    .list()
                    .getItems();
        } catch (KubernetesClientException e) {
            throw new ClaimException(
                    "cannot list the pods of node %s from the API server: %s".formatted(pool, e.getMessage()));
        }
        Set<ClaimRef> out = new java.util.LinkedHashSet<>();
        for (Pod pod : pods) {
            if (ended(pod)) {
                continue;
            }
            String namespace = pod.getMetadata().getNamespace();
            for (String name : claimNames(pod)) {
                ResourceClaim claim;
                try {
                    claim = client.resources(ResourceClaim.class)
                            .inNamespace(namespace)
                            .withName(name)
                            .get();
                } catch (KubernetesClientException e) {
                    throw new ClaimException("claim %s/%s of pod %s: cannot read it from the API server: %s"
                            .formatted(namespace, name, pod.getMetadata().getName(), e.getMessage()));
                }
                if (claim != null
                        && reservedFor(claim, pod.getMetadata().getUid())
                        && DraShares.of(claim).stream().anyMatch(d -> pool.equals(d.node()))) {
                    out.add(new ClaimRef(namespace, name, claim.getMetadata().getUid()));
                }
            }
        }
        return List.copyOf(out);
    }

    private static boolean ended(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** The names of the claims {@code pod} uses: its spec's (once generated) and the one for extended resources. */
    static List<String> claimNames(Pod pod) {
        List<String> names = new ArrayList<>();
        DraAsks.claims(pod).stream()
                .map(DraAsks.PodClaim::claimName)
                .filter(java.util.Objects::nonNull)
                .forEach(names::add);
        if (pod.getStatus() != null
                && pod.getStatus().getExtendedResourceClaimStatus() != null
                && pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName() != null) {
            names.add(pod.getStatus().getExtendedResourceClaimStatus().getResourceClaimName());
        }
        return names;
    }

    private static boolean reservedFor(ResourceClaim claim, String podUid) {
        return claim.getStatus() != null
                && claim.getStatus().getReservedFor() != null
                && claim.getStatus().getReservedFor().stream()
                        .anyMatch(r -> "pods".equals(r.getResource()) && podUid.equals(r.getUid()));
    }

    /**
     * The devices {@code claim} holds in {@code pool}, read by the rule the views count with ({@link DraShares}). Pure.
     * */
    static List<ClaimDevice> devices(ClaimRef ref, ResourceClaim claim, String pool, Hardware hw) {
        if (claim == null || !ref.uid().equals(claim.getMetadata().getUid())) {
            throw new ClaimException("claim %s: not found (deleted, or re-created with another UID)".formatted(ref));
        }
        if (!DraShares.allocated(claim)) {
            throw new ClaimException(
                    "claim %s: not allocated; kube-scheduler allocates it when it schedules the pod".formatted(ref));
        }
        List<ClaimDevice> out = DraShares.of(claim).stream()
                .filter(s -> pool.equals(s.node()))
                .map(s -> device(ref, s, hw))
                .toList();
        if (out.isEmpty()) {
            throw new ClaimException("claim %s: its allocation names no device of driver %s in pool %s"
                    .formatted(ref, DraNames.DRIVER, pool));
        }
        return out;
    }

    /** The pods that reserved {@code claim}, as the API server has them now (a pod gone since is left out). */
    private List<Pod> consumers(ResourceClaim claim) {
        if (claim.getStatus() == null || claim.getStatus().getReservedFor() == null) {
            return List.of();
        }
        List<Pod> pods = new ArrayList<>();
        for (ResourceClaimConsumerReference r : claim.getStatus().getReservedFor()) {
            if (!"pods".equals(r.getResource())) {
                continue;
            }
            try {
                Pod p = client.pods()
                        .inNamespace(claim.getMetadata().getNamespace())
                        .withName(r.getName())
                        .get();
                if (p != null && p.getMetadata().getUid().equals(r.getUid())) {
                    pods.add(p);
                }
            } catch (KubernetesClientException e) {
                throw new ClaimException("claim %s: cannot read pod %s, which reserved it, from the API server: %s"
                        .formatted(claim.getMetadata().getName(), r.getName(), e.getMessage()));
            }
        }
        return pods;
    }

    /**
     * Why a container of {@code pods} cannot be given {@code claim}: it uses two or more of the claim's requests that
     * hold our cards (naming several, or the claim whole). Each request's card comes as its own CDI device, which sets
     * {@code NVIDIA_VISIBLE_DEVICES} and the share's variables, and containerd keeps only the last device's value of a
     * variable, so such a container would be told one card and handed two. Pure.
     */
    static Optional<String> oneRequestPerContainer(ClaimRef ref, ResourceClaim claim, List<Pod> pods) {
        Set<String> ours = new TreeSet<>();
        claim.getStatus().getAllocation().getDevices().getResults().stream()
                .filter(r -> DraNames.DRIVER.equals(r.getDriver()))
                .forEach(r -> ours.add(topRequest(r.getRequest())));
        for (Pod pod : pods) {
            Set<String> names = new TreeSet<>(); // the pod's own names for this claim
            DraAsks.claims(pod).stream()
                    .filter(c -> ref.name().equals(c.claimName()))
                    .forEach(c -> names.add(c.podClaimName()));
            List<Container> containers = new ArrayList<>(pod.getSpec().getContainers());
            if (pod.getSpec().getInitContainers() != null) {
                containers.addAll(pod.getSpec().getInitContainers());
            }
            for (Container container : containers) {
                if (container.getResources() == null || container.getResources().getClaims() == null) {
                    continue;
                }
                Set<String> used = new TreeSet<>();
                for (var c : container.getResources().getClaims()) {
                    if (names.contains(c.getName())) {
                        if (c.getRequest() == null || c.getRequest().isEmpty()) {
                            used.addAll(ours);
                        } else if (ours.contains(c.getRequest())) {
                            used.add(c.getRequest());
                        }
                    }
                }
                if (used.size() > 1) {
                    return Optional.of(("claim %s: container %s of pod %s uses its requests %s, each a card of its "
                                    + "own with its own CDI device, and the container runtime keeps only the last "
                                    + "device's NVIDIA_VISIBLE_DEVICES and limits, so the container would be told one "
                                    + "card and handed %d; give each request to its own container, or ask for the "
                                    + "cards in one request (count: %d)")
                            .formatted(
                                    ref,
                                    container.getName(),
                                    pod.getMetadata().getName(),
                                    String.join(" and ", used),
                                    used.size(),
                                    used.size()));
                }
            }
        }
        return Optional.empty();
    }

    /** A request's name as containers use it: a prioritized list's subrequest ({@code gpu/fast}) is {@code gpu}'s. */
    static String topRequest(String request) {
        int slash = request == null ? -1 : request.indexOf('/');
        return slash < 0 ? request : request.substring(0, slash);
    }

    static ClaimDevice device(ClaimRef ref, DraShares.DraShare s, Hardware hw) {
        if (s.card() < 0 || s.card() >= hw.gpus().size()) {
            throw new ClaimException("claim %s: device %s is not a card of this node (gpu-0..gpu-%d)"
                    .formatted(ref, s.device(), hw.gpus().size() - 1));
        }
        // A claim that names no memory consumes the request policy's default, all of the card's memory (SliceDevices),
        // and kube-scheduler records it; a share recorded with none holds all of it too, so that no share reaches MPS
        // without a memory limit (MpsLimits refuses one): the card's memory is its limit.
        long memoryMib =
                s.wholeCard() || s.memoryMib() == 0 ? hw.gpus().get(s.card()).memoryMib() : s.memoryMib();
        return new ClaimDevice(
                s.request(), s.device(), s.card(), memoryMib, s.milli(), Optional.ofNullable(s.shareId()));
    }
}
