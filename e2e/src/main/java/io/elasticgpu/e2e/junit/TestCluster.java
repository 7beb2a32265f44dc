package io.elasticgpu.e2e.junit;

import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What one end-to-end test gets: an admin client, a namespace of its own (deleted after the test), and the shared
 * control plane, whose scheduler it may restart with another configuration.
 */
public final class TestCluster implements AutoCloseable {

    private final ControlPlane controlPlane;
    private final KubernetesClient client;
    private final String namespace;
    private final List<String> nodes = new ArrayList<>();

    TestCluster(ControlPlane controlPlane, String namespace) {
        this.controlPlane = controlPlane;
        this.client = controlPlane.newClient();
        this.namespace = namespace;
        client.namespaces()
                .resource(new NamespaceBuilder()
                        .withNewMetadata()
                        .withName(namespace)
                        .addToLabels("elasticgpu.io/e2e", "true")
                        .endMetadata()
                        .build())
                .create();
        // Pods cannot be created before the namespace's default service account exists.
        client.serviceAccounts()
                .inNamespace(namespace)
                .withName("default")
                .waitUntilCondition(Objects::nonNull, 60, TimeUnit.SECONDS);
    }

    public KubernetesClient client() {
        return client;
    }

    public String namespace() {
        return namespace;
    }

    public ControlPlane controlPlane() {
        return controlPlane;
    }

    /**
     * Creates fake GPU nodes, named after this test's namespace so that tests sharing the control plane do not
     * collide, and waits until they are Ready and untainted; they are deleted when the test ends.
     *
     * @param specs nodes whose names are suffixes, e.g. {@code a}, {@code b}
     * @return the nodes' full names, in order
     */
    public List<String> createGpuNodes(List<GpuNodeSpec> specs) {
        List<GpuNodeSpec> named = specs.stream()
                .map(s -> new GpuNodeSpec(
                        namespace + "-" + s.name(),
                        s.cards(),
                        s.model(),
                        s.cardMemoryMib(),
                        s.cpuMilli(),
                        s.memoryMib(),
                        s.links()))
                .toList();
        named.forEach(s -> nodes.add(s.name()));
        FakeGpuNodes.create(client, named, Duration.ofMinutes(1));
        return named.stream().map(GpuNodeSpec::name).toList();
    }

    /** Restarts kube-scheduler with another {@code KubeSchedulerConfiguration} (null: the default one). */
    public void restartScheduler(Path config) {
        controlPlane.restartScheduler(config);
    }

    /**
     * Deletes the test's pods at once and waits until they are gone, then its nodes and namespace: a pod left
     * pending would otherwise be scheduled onto the next test's nodes while its namespace terminates.
     */
    @Override
    public void close() {
        try {
            client.pods().inNamespace(namespace).withGracePeriod(0).delete();
            client.pods()
                    .inNamespace(namespace)
                    .informOnCondition(List::isEmpty)
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "the pods of namespace %s did not go away: %s".formatted(namespace, e.getMessage()), e);
        } finally {
            nodes.forEach(n -> client.nodes().withName(n).delete());
            client.namespaces().withName(namespace).delete();
            client.close();
        }
    }
}
