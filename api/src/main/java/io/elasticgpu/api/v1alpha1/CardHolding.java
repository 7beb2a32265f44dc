package io.elasticgpu.api.v1alpha1;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Who holds a card: the one rule the extender, the node agent, the controller and {@code egpu inspect} apply.
 *
 * <p><b>A pod holds the cards it was given until it is {@code Succeeded} or {@code Failed}, or is gone from the
 * API server. A {@code deletionTimestamp} changes nothing.</b>
 *
 * <p>Why: deleting a pod only starts its termination. Its containers get SIGTERM and keep running, and keep
 * their memory and kernels on the card, for up to the grace period (minutes are common for training jobs that
 * checkpoint on SIGTERM), and longer if a finalizer or an unreachable kubelet keeps the object. Only when kubelet
 * reports the containers stopped (the terminal phase) or the object is removed is the card really free. Counting a
 * terminating pod as gone would let a new pod be placed on a card that is still full, which is the one thing this
 * product promises never happens. The cost is that a replacement waits for the old pod to stop, which is what a
 * whole-card device plugin gives too.
 */
public final class CardHolding {

    private CardHolding() {}

    /** True while the pod's containers may still be running on the cards it was given. */
    public static boolean holdsCards(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    /** True for a pod that still holds its cards but is being deleted: shown as "terminating" by the views. */
    public static boolean terminating(Pod pod) {
        return holdsCards(pod) && pod.getMetadata() != null && pod.getMetadata().getDeletionTimestamp() != null;
    }
}
