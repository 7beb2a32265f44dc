package io.elasticgpu.localcluster.demo;

import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./egpu demo} ({@code e2e/bin/cluster demo}, a verb of the lab's program): a control plane, ten GPU nodes,
 * Elastic GPU, a workload.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        header = "./egpu demo: a local cluster running Elastic GPU, a workload, the dashboard.",
        description =
                "Start a local control plane with fake GPU nodes, run Elastic GPU's extender, controller and webhook"
                        + " against it, submit a sample workload, print who holds which card, and wait for Ctrl-C.")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--nodes", paramLabel = "N", description = "Fake GPU nodes (default: ${DEFAULT-VALUE}).")
    int nodes = 10;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where the demo's cluster lives (default: e2e/.demo).")
    Path dir = Binaries.E2E_DIR.resolve(".demo");

    @Option(
            names = "--dashboard-port",
            paramLabel = "PORT",
            description = "Where the dashboard listens on 127.0.0.1; 0 picks a free port (default: ${DEFAULT-VALUE}).")
    int dashboardPort = 8080;

    @Option(names = "--exit", description = "Stop after printing instead of waiting for Ctrl-C.")
    boolean exit;

    @Option(
            names = "--real-node",
            description = "Also join a real node (kubelet, containerd, runc, built by e2e/bin/build-real-node; needs "
                    + "root and cgroups) with a node agent offering two simulated cards, and run three of the "
                    + "workload's pods there in real containers, which print what they were handed.")
    boolean realNode;

    /** The real node, while {@code --real-node} runs one. */
    private DemoRealNode real;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > 200) {
            throw new IllegalArgumentException("--nodes must be 1..200, was " + nodes);
        }
        if (dashboardPort < 0 || dashboardPort > 65535) {
            throw new IllegalArgumentException("--dashboard-port must be 0..65535, was " + dashboardPort);
        }
        if (realNode) {
            Optional<String> cannot = DemoRealNode.cannotRun(Binaries.E2E_DIR);
            if (cannot.isPresent()) {
                throw new IllegalArgumentException("--real-node: " + cannot.get());
            }
        }
        long start = System.nanoTime();
        ControlPlane.deleteData(dir); // every demo starts from an empty cluster, not the last demo's nodes and pods
        // On Ctrl-C or SIGTERM the hook holds the JVM until everything below is closed, or the control plane's
        // processes would outlive it.
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            stop.countDown();
                            try {
                                closed.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "demo-stop"));
        try {
            run(start, stop);
        } finally {
            closed.countDown();
        }
        return 0;
    }

    private void run(long start, CountDownLatch stop) throws Exception {
        System.out.println("demo: starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok …");
        try (ControlPlane cp = ControlPlane.start(ControlPlane.Options.of(dir, Binaries.locate(Binaries.E2E_DIR)));
                Demo demo = Demo.start(
                        cp,
                        Demo.schedulerTemplate(),
                        new InetSocketAddress("127.0.0.1", dashboardPort),
                        Demo.ControlPlaneUse.OWNED)) {
            try {
                List<String> names = demo.createNodes(nodes);
                System.out.printf(
                        "demo: %d fake GPU nodes; their node agents published the inventories%n", names.size());
                System.out.println(
                        "demo: the extender, controller, webhook and dashboard run; submitting the workload in "
                                + "namespace demo …");
                demo.submitWorkload(Duration.ofMinutes(2));
                String broken = names.getLast();
                demo.failCard(broken, 1);
                System.out.printf(
                        "demo: Xid %d on %s card 1; its node agent marked the card unhealthy%n",
                        Demo.XID_FALLEN_OFF_THE_BUS, broken);
                System.out.println();
                demo.print(System.out);
                if (realNode) {
                    runOnARealNode(cp);
                }
                System.out.printf(
                        "%nready in %.0f s. kubeconfig: %s%n", (System.nanoTime() - start) / 1e9, cp.kubeconfig());
                System.out.printf(
                        "  export KUBECONFIG=%s; ./egpu inspect -o wide; %s get egpu%n",
                        cp.kubeconfig(), cp.binaries().kubectl());
                if (!exit) {
                    System.out.printf("dashboard: %s%nCtrl-C stops everything.%n", demo.dashboardUrl());
                    stop.await();
                    System.out.println("demo: stopping …");
                }
            } finally {
                if (real != null) {
                    real.close();
                }
            }
        }
    }

    private void runOnARealNode(ControlPlane cp) {
        System.out.println();
        System.out.println("demo: starting a real node (containerd, kubelet) and its node agent …");
        real = DemoRealNode.start(cp, Binaries.E2E_DIR);
        real.submit(Demo.NAMESPACE, Duration.ofMinutes(2));
        real.print(Demo.NAMESPACE, System.out);
    }
}
