package io.elasticgpu.localcluster;

import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.DetachedCluster;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code e2e/bin/cluster up}: the local control plane with fake GPU nodes, left running for a person. */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        header = "Start the local control plane and create fake GPU nodes.",
        description = "Starts upstream etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on"
                + " loopback, creates fake GPU nodes, prints the kubeconfig and leaves them running (status, down).")
public final class UpCommand implements Callable<Integer> {

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "3",
            description = "Fake GPU nodes, 0..5000: a mix of 8-card A100 (two NVLink islands), 4-card V100 (NVLink"
                    + " pairs) and 2-card T4 nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--scheduler-config",
            paramLabel = "FILE",
            description = "A KubeSchedulerConfiguration for kube-scheduler.")
    Path schedulerConfig;

    @Mixin
    ClusterDir cluster;

    @Override
    public Integer call() {
        if (nodes < 0 || nodes > 5000) {
            throw new IllegalArgumentException("--nodes must be 0..5000, was " + nodes);
        }
        Path dir = cluster.dir;
        if (DetachedCluster.recorded(dir) && DetachedCluster.read(dir).alive()) {
            throw new IllegalStateException(
                    "a cluster is already running in " + dir + "; stop it with: e2e/bin/cluster down");
        }
        long start = System.nanoTime();
        ControlPlane.Options options =
                ControlPlane.Options.of(dir, Binaries.locate(Binaries.E2E_DIR)).withSchedulerConfig(schedulerConfig);
        ControlPlane cp = ControlPlane.start(options);
        try (KubernetesClient client = cp.newClient()) {
            FakeGpuNodes.create(client, GpuNodeSpec.mixed("gpu-node", nodes), Duration.ofMinutes(2));
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
        cp.detach();
        System.out.printf(
                "control plane up in %.0f s with %d fake GPU nodes: %s%n",
                (System.nanoTime() - start) / 1e9, nodes, cp.server());
        System.out.printf(
                "kubeconfig: %s%n  export KUBECONFIG=%s%n  %s get nodes%nlogs: %s%n",
                cp.kubeconfig(), cp.kubeconfig(), cp.binaries().kubectl(), dir.resolve("logs"));
        return 0;
    }
}
