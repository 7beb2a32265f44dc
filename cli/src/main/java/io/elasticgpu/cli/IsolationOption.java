package io.elasticgpu.cli;

import io.elasticgpu.controller.webhook.ShareAdmission;
import io.elasticgpu.node.isolation.IsolationConfig;
import picocli.CommandLine.Option;

/**
 * {@code --isolation}: what holds each GPU slice to its share on the nodes, which the node agents enforce and the
 * controller's webhook checks pods against ({@code @Mixin}).
 */
final class IsolationOption {

    @Option(
            names = "--isolation",
            paramLabel = "none|mps",
            defaultValue = "none",
            description = "What holds each GPU slice to its share: none (the container is told its share; nothing"
                    + " enforces it), or mps (the node agent runs a CUDA MPS control daemon per share, started and"
                    + " supervised by it, with the share's memory and compute limits set on the daemon's side). The"
                    + " controller's webhook then refuses a pod asking a slice that MPS cannot hold: one without"
                    + " memory, or one it cannot divide among its elasticgpu.io/gpu-processes (e.g. 1 percent of"
                    + " compute among 2, or no more memory per process than --mps-context-reserve-mib); and with either"
                    + " value a pod whose elasticgpu.io/gpu-processes is not 1..48. The node agents and the controller"
                    + " must have the same. Default ${DEFAULT-VALUE}.")
    String isolation;

    /** As the node agent reads it. */
    IsolationConfig.Mode forNodeAgent() {
        return IsolationConfig.mode(isolation);
    }

    /** As the controller's webhook reads it. */
    ShareAdmission.Isolation forWebhook() {
        return ShareAdmission.Isolation.of(isolation, "--isolation");
    }
}
