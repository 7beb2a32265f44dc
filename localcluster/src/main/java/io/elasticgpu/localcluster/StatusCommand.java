package io.elasticgpu.localcluster;

import io.elasticgpu.localcluster.controlplane.DetachedCluster;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code e2e/bin/cluster status}: which of a detached cluster's components run; exit 1 when one does not. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        header = "Show whether the local cluster's components run.",
        description = "Lists each component of the cluster that up started, with its pid and whether it runs; exit 1"
                + " when one does not.")
public final class StatusCommand implements Callable<Integer> {

    @Mixin
    ClusterDir cluster;

    @Override
    public Integer call() {
        DetachedCluster detached = DetachedCluster.read(cluster.dir);
        for (Map.Entry<String, Long> component : new TreeMap<>(detached.pids()).entrySet()) {
            System.out.printf(
                    "%-24s pid %-8d %s%n",
                    component.getKey(),
                    component.getValue(),
                    detached.running(component.getKey()) ? "running" : "NOT RUNNING");
        }
        System.out.printf("apiserver: %s%nkubeconfig: %s%n", detached.server(), detached.kubeconfig());
        return detached.alive() ? 0 : 1;
    }
}
