package io.elasticgpu.localcluster;

import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.DetachedCluster;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code e2e/bin/cluster down}: stops a detached cluster and deletes its data; exit 1 when ports stay bound. */
@Command(
        name = "down",
        mixinStandardHelpOptions = true,
        header = "Stop the local cluster and free its ports.",
        description = "Stops every component of the cluster that up started, deletes its stored objects (the logs"
                + " stay) and checks that its ports are free; exit 1 when one is still bound.")
public final class DownCommand implements Callable<Integer> {

    @Mixin
    ClusterDir cluster;

    @Override
    public Integer call() throws IOException {
        List<Integer> bound = DetachedCluster.read(cluster.dir).stop();
        ControlPlane.deleteData(cluster.dir);
        if (!bound.isEmpty()) {
            System.err.println("cluster down: stopped, but ports are still bound: " + bound);
            return 1;
        }
        System.out.println("cluster stopped; logs kept in " + cluster.dir.resolve("logs"));
        return 0;
    }
}
