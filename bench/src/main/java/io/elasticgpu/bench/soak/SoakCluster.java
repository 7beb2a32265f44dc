package io.elasticgpu.bench.soak;

import io.elasticgpu.api.v1alpha1.ClaimAnnotations;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.ElasticGPUClassSpec;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.TcpBalancer;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.controlplane.WebhookRollout;
import io.elasticgpu.localcluster.nodes.FakeGpuNodes;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The soak's cluster: the control plane, the kwok GPU nodes, two extender replicas (the active one beside
 * kube-scheduler, as the chart's sidecar; a second watching, as the standby scheduler's sidecar is) and two
 * controller replicas electing a leader and both serving the admission webhook behind one address (the chart's
 * Service), started as the chart starts them; the class the users' ElasticGPUClaims name; and the crashes the faults
 * cause.
 */
final class SoakCluster implements AutoCloseable {

    static final String NAMESPACE = "soak";
    /** The ElasticGPUClass the users' claims name. */
    static final String CLAIM_CLASS = "soak";
    /**
     * The upgrade fault's {@code helm upgrade --set}: values that change the extender's and the controller's pod
     * templates (their JVM options), so that a rollout replaces every one of our pods and the scheduler's.
     */
    static final Map<String, String> UPGRADE_VALUES = Map.of(
            "extender.javaToolOptions", "-XX:+UseSerialGC -XX:MaxRAMPercentage=70",
            "controller.javaToolOptions", "-XX:+UseSerialGC -XX:MaxRAMPercentage=70");
    /** How a controller-leader fault that killed nothing begins. */
    static final String NONE_KILLED = "no live controller";
    /** Where the chart installs: the ledgers (the extender's default) and the controllers' Lease. */
    private static final String SYSTEM = "elastic-gpu-system";
    /** {@code egpu controller}'s Lease (Leadership.LEASE_NAME; the bench does not depend on the controller module). */
    private static final String CONTROLLER_LEASE = "egpu-controller";
    /** How long a crashed component stays away before it is started again (kubelet's first restart back-off). */
    private static final Duration DOWN = Duration.ofSeconds(3);
    /** A killed leader's Lease (15 s) expires and the other replica takes it within this. */
    private static final Duration LEASE_TAKEOVER = Duration.ofSeconds(40);
    /**
     * How long a started component may take to read the cluster and answer /readyz: generous, because a restart
     * under the soak's load on a shared machine may take minutes, and a soak that gives up has measured nothing.
     */
    private static final Duration READY = Duration.ofMinutes(5);

    private final ControlPlane cp;
    private final KubernetesClient client;
    /** The chart as installed, and as the upgrade fault renders it with {@link #UPGRADE_VALUES}. */
    private final ChartConfig installed;

    private final ChartConfig upgraded;
    /** What the components now run. */
    private ChartConfig chart;

    private final MemoryCgroups cgroups;
    private final Map<String, GpuNodeSpec> nodes = new LinkedHashMap<>();
    private final List<EgpuProcess> extenders = new ArrayList<>();
    private final List<EgpuProcess> controllers = new ArrayList<>();
    /** Each controller replica's webhook port, kept across its restarts, behind one address as the chart's Service. */
    private final List<Integer> webhookPorts = List.of(Ports.free(), Ports.free());

    private final TcpBalancer webhook = new TcpBalancer(webhookPorts);

    private SoakCluster(ControlPlane cp, ChartConfig installed, ChartConfig upgraded, MemoryCgroups cgroups) {
        this.cp = cp;
        this.client = cp.newClient();
        this.installed = installed;
        this.upgraded = upgraded;
        this.chart = installed;
        this.cgroups = cgroups;
    }

    static SoakCluster start(SoakOptions options, Path repository, Path workDir) {
        ChartConfig chart = ChartConfig.render(repository);
        ChartConfig upgraded = ChartConfig.render(repository, UPGRADE_VALUES);
        ControlPlane cp = ControlPlane.start(ControlPlane.Options.of(workDir, Binaries.locate(Binaries.E2E_DIR)));
        SoakCluster cluster = new SoakCluster(
                cp,
                chart,
                upgraded,
                MemoryCgroups.create(cp.workDir().getFileName().toString()));
        try {
            cluster.startEverything(options.nodes());
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void startEverything(int nodeCount) {
        for (String ns : List.of(NAMESPACE, SYSTEM)) {
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build())
                    .create();
        }
        ElasticGPUCrds.apply(client);
        GpuNodeSpec.mixed("soak", nodeCount).forEach(s -> nodes.put(s.name(), s));
        FakeGpuNodes.create(client, List.copyOf(nodes.values()), Duration.ofMinutes(3));
        for (int i = 0; i < 2; i++) {
            extenders.add(startExtender(i, Ports.free()));
            controllers.add(startController(i, Ports.free()));
        }
        cp.restartScheduler(ChartConfig.write(
                chart.withExtenderAt(extenders.getFirst().url()), cp.workDir().resolve("soak-scheduler.yaml")));
        client.resource(ElasticGPUClass.of(CLAIM_CLASS, ElasticGPUClassSpec.Provisioner.QGPU, null))
                .create();
        awaitWebhook();
    }

    /** Until the webhook answers: a claim's pod comes back with the claim's resources (then both go). */
    private void awaitWebhook() {
        client.resource(ElasticGPUClaim.of(
                        NAMESPACE, "warm-up", CLAIM_CLASS, Map.of(ResourceNames.GPU_CORE, new Quantity("10"))))
                .create();
        var pod = WebhookRollout.createOnceMutated(
                client,
                NAMESPACE,
                n -> new PodBuilder()
                        .withNewMetadata()
                        .withName("warm-up-" + n)
                        .addToAnnotations(ClaimAnnotations.key("main"), "warm-up")
                        .endMetadata()
                        .withNewSpec()
                        .withSchedulerName("no-scheduler")
                        .addNewContainer()
                        .withName("main")
                        .withImage("registry.k8s.io/pause:3.10")
                        .endContainer()
                        .endSpec()
                        .build(),
                WebhookRollout.hasLimit(ResourceNames.GPU_CORE),
                READY);
        client.pods().resource(pod).withGracePeriod(0).delete();
        client.resources(ElasticGPUClaim.class)
                .inNamespace(NAMESPACE)
                .withName("warm-up")
                .delete();
    }

    private EgpuProcess startExtender(int replica, int port) {
        List<String> args = new ArrayList<>(chart.extenderArgs());
        args.addAll(List.of("--kubeconfig", cp.kubeconfig().toString()));
        return EgpuProcess.launch("scheduler", args, log("extender-" + port))
                .launcher(cgroups.launcher(
                        group("extender-" + replica), chart.extender().limitMib()))
                .jvm(jvm(chart.extender()))
                .port(port)
                .ready(READY)
                .start();
    }

    /**
     * As the chart's container runs it: its options, and the heap its memory limit makes, from the cgroup where
     * there is one, otherwise from {@code -Xmx}.
     */
    private List<String> jvm(ChartConfig.Jvm container) {
        return cgroups.available() ? container.toolOptions() : container.heapSized();
    }

    /**
     * A replica's memory cgroup: its own, as its pod's; while an upgrade rolls, the new pod beside the old one has
     * another ({@code -upgraded}), as it would.
     */
    private String group(String replica) {
        return chart == installed ? replica : replica + "-upgraded";
    }

    private EgpuProcess startController(int replica, int port) {
        int webhookPort = webhookPorts.get(replica);
        return EgpuProcess.launch(
                        "controller",
                        List.of(
                                "--kubeconfig",
                                cp.kubeconfig().toString(),
                                "--namespace-for-lease",
                                SYSTEM,
                                "--webhook-listen",
                                "127.0.0.1:" + webhookPort,
                                "--webhook-url",
                                "127.0.0.1:" + webhook.port(),
                                // The chart's default is warn; the soak keeps what each sync wrote, to explain a
                                // finding.
                                "--log-level",
                                "info"),
                        log("controller-" + port))
                .launcher(cgroups.launcher(
                        group("controller-" + replica), chart.controller().limitMib()))
                .jvm(jvm(chart.controller()))
                .port(port)
                .ready(READY)
                .start();
    }

    private Path log(String name) {
        return cp.workDir().resolve("logs").resolve(name + ".log");
    }

    KubernetesClient client() {
        return client;
    }

    Map<String, GpuNodeSpec> nodes() {
        return nodes;
    }

    String schedulerName() {
        return chart.schedulerName();
    }

    /** The cluster's GPU in milli-cards. */
    long capacityMilli() {
        return nodes.values().stream().mapToLong(n -> n.cards() * 1000L).sum();
    }

    Path logs() {
        return cp.workDir().resolve("logs");
    }

    /** Our JVMs' pids, by name, for the heap samples. */
    Map<String, Long> jvmPids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < extenders.size(); i++) {
            pids.put("extender-" + i, extenders.get(i).process().pid());
            pids.put("controller-" + i, controllers.get(i).process().pid());
        }
        return pids;
    }

    MemoryCgroups cgroups() {
        return cgroups;
    }

    /** Every component's pid, by name, for the RSS samples. */
    Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>(cp.pids());
        pids.putAll(jvmPids());
        return pids;
    }

    /** SIGKILL of the extender kube-scheduler calls; started again on its port, as kubelet restarts a container. */
    String crashActiveExtender() {
        EgpuProcess active = extenders.getFirst();
        active.kill();
        sleep(DOWN);
        extenders.set(0, startExtender(0, active.port()));
        return "extender on port " + active.port();
    }

    /** SIGKILL of the controller replica that holds the Lease; the other takes over, the killed one comes back. */
    String crashControllerLeader() {
        long deadline = System.nanoTime() + LEASE_TAKEOVER.toNanos();
        String holder = null;
        do {
            Lease lease = client.leases()
                    .inNamespace(SYSTEM)
                    .withName(CONTROLLER_LEASE)
                    .get();
            holder = lease == null || lease.getSpec() == null
                    ? null
                    : lease.getSpec().getHolderIdentity();
            for (int i = 0; i < controllers.size(); i++) {
                EgpuProcess c = controllers.get(i);
                if (holder != null && holder.contains("-" + c.process().pid() + "-")) {
                    c.kill();
                    sleep(DOWN);
                    controllers.set(i, startController(i, c.port()));
                    return "controller leader " + holder;
                }
            }
            sleep(Duration.ofSeconds(1)); // the Lease still names a replica killed before: wait for the takeover
        } while (System.nanoTime() < deadline);
        return NONE_KILLED + " took the lease (holder " + holder + ") in " + LEASE_TAKEOVER + "; none killed";
    }

    /**
     * {@code helm upgrade} with {@link #UPGRADE_VALUES}, then {@code helm rollback}, each rolled out as the chart's
     * Deployments roll (a new pod ready before an old one goes, SIGTERM to the old): the standby scheduler pod's
     * extender, then the active one's (kube-scheduler started again calling the new extender, as the new pod's
     * scheduler takes the Lease), then each controller replica in turn (the other serving the webhook meanwhile).
     */
    String upgradeAndRollBack(Duration between) {
        rollOut(upgraded);
        sleep(between);
        rollOut(installed);
        return "every extender, controller and kube-scheduler rolled to " + UPGRADE_VALUES.keySet() + " and back";
    }

    private void rollOut(ChartConfig to) {
        chart = to;
        for (int replica : List.of(1, 0)) {
            EgpuProcess old = extenders.get(replica);
            EgpuProcess next = startExtender(replica, Ports.free());
            if (replica == 0) {
                cp.restartScheduler(ChartConfig.write(
                        chart.withExtenderAt(next.url()), cp.workDir().resolve("soak-scheduler.yaml")));
            }
            extenders.set(replica, next);
            old.close();
        }
        for (int replica = 0; replica < controllers.size(); replica++) {
            EgpuProcess old = controllers.get(replica);
            old.close(); // its webhook port is the Service's; the other replica serves while it is away
            controllers.set(replica, startController(replica, old.port()));
        }
    }

    String crash(String component) {
        cp.crash(component, DOWN);
        return component;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        extenders.forEach(EgpuProcess::close);
        controllers.forEach(EgpuProcess::close);
        webhook.close();
        client.close();
        cp.close();
        cgroups.close();
    }
}
