package io.elasticgpu.localcluster.realnode;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/**
 * Pods for a {@link RealNode}: pinned to it by {@code kubernetes.io/hostname}, tolerating its taint, without cluster
 * DNS (the test control plane has none) or service links, with a one-second grace; containers run the workload image
 * imported there, never pulled.
 */
public final class RealNodePod {

    private RealNodePod() {}

    /** A pod named {@code name} for {@code node}, with no container yet. */
    public static PodBuilder of(RealNode node, String name) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .addToNodeSelector("kubernetes.io/hostname", node.name())
                .addNewToleration()
                .withKey(RealNode.TAINT_KEY)
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .endToleration()
                .withDnsPolicy("Default")
                .withTerminationGracePeriodSeconds(1L)
                .withEnableServiceLinks(false)
                .endSpec();
    }

    /** The same with one container {@code main} that runs {@code sh -c script} and asks {@code limits}. */
    public static PodBuilder running(RealNode node, String name, String script, Map<String, Quantity> limits) {
        return of(node, name)
                .editSpec()
                .addNewContainer()
                .withName("main")
                .withImage(node.busyboxImage())
                .withImagePullPolicy("Never")
                .withCommand("sh", "-c", script)
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .endContainer()
                .endSpec();
    }
}
