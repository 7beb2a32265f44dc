package io.elasticgpu.localcluster.controlplane;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files {@link ControlPlane} writes into its work directory for the upstream components to read: their
 * kubeconfigs, the apiserver's audit policy and kube-scheduler's configuration.
 */
final class ComponentFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Path workDir;
    private final Credentials credentials;

    ComponentFiles(Path workDir, Credentials credentials) {
        this.workDir = workDir;
        this.credentials = credentials;
    }

    /** The admin's kubeconfig at {@code admin}, and the scheduler's and the controller manager's beside it. */
    void writeKubeconfigs(Path admin, String server) {
        String ca = credentials.caPem();
        Kubeconfig.write(admin, server, ca, read("admin.crt"), read("admin.key"), "admin");
        Kubeconfig.write(
                path("scheduler.kubeconfig"),
                server,
                ca,
                read("scheduler.crt"),
                read("scheduler.key"),
                "system:kube-scheduler");
        Kubeconfig.write(
                path("controller-manager.kubeconfig"),
                server,
                ca,
                read("controller-manager.crt"),
                read("controller-manager.key"),
                "system:kube-controller-manager");
    }

    /**
     * The apiserver's audit policy: the requests of the service accounts of {@code namespace} at Metadata level,
     * nobody else's.
     */
    Path auditPolicy(String namespace) {
        Path file = path("audit-policy.yaml");
        try {
            return Files.writeString(file, """
                    apiVersion: audit.k8s.io/v1
                    kind: Policy
                    omitStages: [RequestReceived]
                    rules:
                    - level: Metadata
                      userGroups: ["system:serviceaccounts:%s"]
                    - level: None
                    """.formatted(namespace));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /**
     * The given kube-scheduler configuration (null: the default profile) with {@code kubeconfig} and without leader
     * election (one replica).
     */
    Path schedulerConfig(Path given, String kubeconfig) {
        try {
            ObjectNode config = given == null
                    ? YAML.createObjectNode()
                            .put("apiVersion", "kubescheduler.config.k8s.io/v1")
                            .put("kind", "KubeSchedulerConfiguration")
                    : (ObjectNode) YAML.readTree(given.toFile());
            config.withObject("clientConnection").put("kubeconfig", kubeconfig);
            if (!config.withObject("leaderElection").has("leaderElect")) {
                config.withObject("leaderElection").put("leaderElect", false);
            }
            Path out = path("scheduler-config.yaml");
            YAML.writeValue(out.toFile(), config);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the scheduler configuration " + given + ": " + e.getMessage(), e);
        }
    }

    private Path path(String name) {
        return workDir.resolve(name);
    }

    private String read(String file) {
        return credentials.read(credentials.dir().resolve(file));
    }
}
