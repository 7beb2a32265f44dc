package io.elasticgpu.localcluster;

import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.DetachedCluster;
import io.elasticgpu.localcluster.demo.DemoCommand;

import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;

import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code e2e/bin/cluster up|status|down}: the e2e control plane for a person, with fake GPU nodes. */
@Command(name = "cluster", mixinStandardHelpOptions = true,
        description = "A local Kubernetes control plane (upstream etcd, kube-apiserver, kube-controller-manager,"
                + " kube-scheduler, kwok) with fake GPU nodes.",
        subcommands = {ClusterCli.Up.class, ClusterCli.Status.class, ClusterCli.Down.class, DemoCommand.class})
public final class ClusterCli {

    static final Path E2E = Binaries.E2E_DIR;

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new ClusterCli());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof IllegalStateException || e instanceof IllegalArgumentException || e instanceof UncheckedIOException) {
                commandLine.getErr().println("cluster " + commandLine.getCommandName() + ": " + e.getMessage());
                return 1;
            }
            throw e;
        });
        System.exit(cli.execute(args));
    }

    abstract static class DirOption {
        @Option(names = "--dir", paramLabel = "DIR", description = "Where the cluster lives (default: e2e/.cluster).")
        Path dir = E2E.resolve(".cluster");
    }

    @Command(name = "up", mixinStandardHelpOptions = true, description = "Start the control plane and create fake GPU nodes.")
    static final class Up extends DirOption implements Callable<Integer> {
        @Option(names = "--nodes", paramLabel = "N", description = "Fake GPU nodes: a mix of 8-card A100 (two NVLink islands),"
                + " 4-card V100 (NVLink pairs) and 2-card T4 nodes (default: ${DEFAULT-VALUE}).")
        int nodes = 3;

        @Option(names = "--scheduler-config", paramLabel = "FILE", description = "A KubeSchedulerConfiguration for kube-scheduler.")
        Path schedulerConfig;

        @Override
        public Integer call() throws IOException {
            if (nodes < 0 || nodes > 5000) {
                throw new IllegalArgumentException("--nodes must be 0..5000, was " + nodes);
            }
            if (DetachedCluster.recorded(dir) && DetachedCluster.read(dir).alive()) {
                throw new IllegalStateException("a cluster is already running in " + dir + "; stop it with: e2e/bin/cluster down");
            }
            long start = System.nanoTime();
            ControlPlane.Options options = ControlPlane.Options.of(dir, Binaries.locate(E2E)).withSchedulerConfig(schedulerConfig);
            ControlPlane cp = ControlPlane.start(options);
            try (KubernetesClient client = cp.newClient()) {
                FakeGpuNodes.create(client, GpuNodeSpec.mixed("gpu-node", nodes), Duration.ofMinutes(2));
            } catch (RuntimeException e) {
                cp.close();
                throw e;
            }
            cp.detach();
            Path kubectl = cp.binaries().kubectl();
            System.out.printf("control plane up in %.0f s with %d fake GPU nodes: %s%n", (System.nanoTime() - start) / 1e9,
                    nodes, cp.server());
            System.out.printf("kubeconfig: %s%n  export KUBECONFIG=%s%n  %s get nodes%nlogs: %s%n", cp.kubeconfig(),
                    cp.kubeconfig(), kubectl, dir.resolve("logs"));
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show whether the cluster's components run.")
    static final class Status extends DirOption implements Callable<Integer> {
        @Override
        public Integer call() {
            DetachedCluster cluster = DetachedCluster.read(dir);
            for (Map.Entry<String, Long> component : new TreeMap<>(cluster.pids()).entrySet()) {
                boolean up = cluster.running(component.getKey());
                System.out.printf("%-24s pid %-8d %s%n", component.getKey(), component.getValue(), up ? "running" : "NOT RUNNING");
            }
            System.out.printf("apiserver: %s%nkubeconfig: %s%n", cluster.server(), cluster.kubeconfig());
            return cluster.alive() ? 0 : 1;
        }
    }

    @Command(name = "down", mixinStandardHelpOptions = true, description = "Stop every component and free their ports.")
    static final class Down extends DirOption implements Callable<Integer> {
        @Override
        public Integer call() throws IOException {
            List<Integer> bound = DetachedCluster.read(dir).stop();
            ControlPlane.deleteData(dir);
            if (!bound.isEmpty()) {
                System.err.println("cluster down: stopped, but ports are still bound: " + bound);
                return 1;
            }
            System.out.println("cluster stopped; logs kept in " + dir.resolve("logs"));
            return 0;
        }
    }

}
