package io.elasticgpu.bench.gpu;

import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.isolation.MpsIsolation;
import io.elasticgpu.node.usage.PodView;
import java.util.List;
import java.util.Map;

/**
 * A fake pod of the check: one container ({@value #CONTAINER}) holding a share of card 0 through MPS, with a fixed uid
 * and container id, so that its processes' cgroup ({@link PodCgroups}) names it as kubelet and containerd would.
 *
 * @param memoryMib the share's memory on card 0
 * @param percent   its compute share in percent
 * @param processes how many CUDA processes it declares ({@code elasticgpu.io/gpu-processes})
 */
record Pod(String name, String uid, String containerId, long memoryMib, int percent, int processes) {

    static final String NAMESPACE = "gpu-check";
    static final String CONTAINER = "main";

    /** Pod A: 20 GiB and 30 % in one process. */
    static final Pod A = new Pod("pod-a", "e1a5c0de-0000-4000-8000-00000000000a", "a1".repeat(32), 20480, 30, 1);
    /** Pod B: 40 GiB and 60 % in two processes (20 GiB and 30 % each). */
    static final Pod B = new Pod("pod-b", "e1a5c0de-0000-4000-8000-00000000000b", "b2".repeat(32), 40960, 60, 2);

    static final List<Pod> BOTH = List.of(A, B);

    /** The share's key, as the device plugin would make it for this container's answer. */
    String key() {
        return MpsIsolation.deviceKey("gpu-check " + name);
    }

    /** Who holds the share, as the agent names a device-plugin container: {@code namespace/pod/container}. */
    String holder() {
        return NAMESPACE + "/" + name + "/" + CONTAINER;
    }

    List<Share> shares(String cardUuid) {
        return List.of(new Share(0, cardUuid, percent * 10, memoryMib));
    }

    /** Each process's MPS memory limit: its part of the share less the CUDA context reserve. */
    long limitMib(long contextReserveMib) {
        return memoryMib / processes - contextReserveMib;
    }

    /** Each process's active thread percentage. */
    int processPercent() {
        return percent / processes;
    }

    /** The pod as the agent's usage monitor knows it: its container and its grant on card 0. */
    PodView view() {
        return new PodView(
                uid, NAMESPACE, name, Map.of(containerId, CONTAINER), Map.of(CONTAINER, Map.of(0, memoryMib)));
    }
}
