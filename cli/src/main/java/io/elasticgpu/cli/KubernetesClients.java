package io.elasticgpu.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The API client of every command that talks to a cluster: a given kubeconfig, else fabric8's usual search. */
final class KubernetesClients {

    private KubernetesClients() {}

    /** @param kubeconfig a kubeconfig file, or null: $KUBECONFIG, ~/.kube/config, then the pod's service account */
    static KubernetesClient create(Path kubeconfig) {
        if (kubeconfig == null) {
            return new KubernetesClientBuilder().build();
        }
        try {
            return new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage(), e);
        }
    }
}
