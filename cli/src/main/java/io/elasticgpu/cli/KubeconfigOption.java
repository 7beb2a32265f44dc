package io.elasticgpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --kubeconfig}, for every command that talks to a cluster ({@code @Mixin}). */
final class KubeconfigOption {

    @Option(
            names = "--kubeconfig",
            paramLabel = "FILE",
            description = "Kubeconfig (default: $KUBECONFIG, ~/.kube/config, then the pod's service account).")
    Path file;

    /** The file given, or null for fabric8's usual search. */
    Path path() {
        return file;
    }

    /** A client of the cluster the kubeconfig names. */
    KubernetesClient client() {
        return KubernetesClients.create(file);
    }
}
