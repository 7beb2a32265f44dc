package io.elasticgpu.node.allocation;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.PodGrant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pod bound to this node as the agent needs it: what each container asks by resource name, and the cards the
 * extender planned. Immutable; made from the API's pods by {@link ClusterPods}.
 *
 * @param uid        the pod's uid
 * @param assumeTime when the extender chose its cards (Unix nanoseconds), {@code Long.MAX_VALUE} if unknown
 * @param plan       the {@code elasticgpu.io/allocation} annotation, if the extender wrote one
 * @param allocated  whether the agent already recorded what kubelet gave it ({@code elasticgpu.io/phase: allocated})
 * @param containers init containers first, then app containers, in spec order (kubelet's allocation order)
 * @param processes  the {@link io.elasticgpu.api.v1alpha1.MpsLimits#PROCESSES_ANNOTATION} annotation as written, if any
 * @param containerIds the runtime's id of each running container (without the {@code containerd://} scheme) → its
 *                   name, from the pod's status, to tell whose a process on a card is
 * @param ownShm     the containers that mount a volume of the pod's own at {@code /dev/shm} (isolation by MPS then
 *                   gives them no {@code /dev/shm} of their share's)
 */
public record NodePod(
        String uid,
        String namespace,
        String name,
        long assumeTime,
        Optional<PodGrant> plan,
        boolean allocated,
        List<Container> containers,
        Optional<String> processes,
        Map<String, String> containerIds,
        java.util.Set<String> ownShm) {

    public NodePod(
            String uid,
            String namespace,
            String name,
            long assumeTime,
            Optional<PodGrant> plan,
            boolean allocated,
            List<Container> containers,
            Optional<String> processes,
            Map<String, String> containerIds) {
        this(
                uid,
                namespace,
                name,
                assumeTime,
                plan,
                allocated,
                containers,
                processes,
                containerIds,
                java.util.Set.of());
    }

    public NodePod(
            String uid,
            String namespace,
            String name,
            long assumeTime,
            Optional<PodGrant> plan,
            boolean allocated,
            List<Container> containers) {
        this(uid, namespace, name, assumeTime, plan, allocated, containers, Optional.empty(), Map.of());
    }

    /**
     * One container: its extended-resource limits, the resource family it used, and whether it is an init container
     * that runs to completion (kubelet's pod-resources API never lists those).
     */
    public record Container(String name, Map<String, Long> limits, Family family, boolean init) {
        public Container {
            requireNonNull(name, "name");
            limits = Map.copyOf(limits);
            requireNonNull(family, "family");
        }

        public long asks(String resource) {
            return limits.getOrDefault(resource, 0L);
        }
    }

    public NodePod {
        requireNonNull(uid, "uid");
        requireNonNull(namespace, "namespace");
        requireNonNull(name, "name");
        requireNonNull(plan, "plan");
        containers = List.copyOf(containers);
        requireNonNull(processes, "processes");
        containerIds = Map.copyOf(containerIds);
        ownShm = java.util.Set.copyOf(ownShm);
    }

    /** {@code namespace/name}. */
    public String fullName() {
        return namespace + "/" + name;
    }

    public ContainerKey key(Container c) {
        return new ContainerKey(namespace, name, c.name());
    }

    /** The shares the extender planned for {@code container}, empty when it planned none. */
    public List<PodGrant.Share> planFor(String container) {
        return plan.map(a -> a.containers().getOrDefault(container, List.of())).orElse(List.of());
    }
}
