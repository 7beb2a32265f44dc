package io.elasticgpu.node.kubelet;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * What kubelet made of a pod: admitted with its containers' devices, rejected, its DRA claims not prepared, or a
 * container that cannot start.
 */
public sealed interface Admission {

    /** Every init and app container by name, each with what the container runtime would be given. */
    record Admitted(Map<String, ContainerResult> containers) implements Admission {
        public Admitted {
            containers = Map.copyOf(containers);
        }

        /** @throws IllegalArgumentException naming the containers there are when {@code name} is not one */
        public ContainerResult container(String name) {
            ContainerResult result = containers.get(name);
            if (result == null) {
                throw new IllegalArgumentException(
                        "no container %s; the pod has %s".formatted(name, containers.keySet()));
            }
            return result;
        }
    }

    /**
     * Kubelet refused the pod: {@code reason} is what it puts in the pod's status ({@link #UNEXPECTED_ADMISSION_ERROR}
     * when a device allocation fails) and {@code error} its message. The pod is no longer active.
     */
    record Rejected(String reason, String error) implements Admission {
        /** Kubelet's reason for a pod whose device allocation failed. */
        public static final String UNEXPECTED_ADMISSION_ERROR = "UnexpectedAdmissionError";

        public Rejected {
            requireNonNull(reason, "reason");
            requireNonNull(error, "error");
        }
    }

    /**
     * The pod was admitted but {@code container} could not get its device options (a plugin's PreStartContainer
     * failed, say); kubelet reports {@link #CREATE_CONTAINER_CONFIG_ERROR} and retries, so the pod stays active.
     */
    record ContainerNotStarted(String container, String reason, String error) implements Admission {
        /** Kubelet's reason for a container whose runtime options could not be generated. */
        public static final String CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError";

        public ContainerNotStarted {
            requireNonNull(container, "container");
            requireNonNull(reason, "reason");
            requireNonNull(error, "error");
        }
    }

    /**
     * The pod was admitted but its ResourceClaims could not be prepared (their driver is not registered, a claim is
     * not reserved for the pod, NodePrepareResources failed); kubelet records {@link #REASON} and retries SyncPod,
     * so the pod stays active ({@link KubeletDriver#sync} retries).
     */
    record NotPrepared(String error) implements Admission {
        /** The reason of the event kubelet records on the pod. */
        public static final String REASON = "FailedPrepareDynamicResources";

        public NotPrepared {
            requireNonNull(error, "error");
        }
    }
}
