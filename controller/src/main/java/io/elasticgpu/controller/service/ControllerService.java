package io.elasticgpu.controller.service;

import io.elasticgpu.controller.dashboard.ClusterWatch;
import io.elasticgpu.controller.dashboard.ControllerMetrics;
import io.elasticgpu.controller.dashboard.DashboardServer;
import io.elasticgpu.controller.provisioning.ElasticGPUController;
import io.elasticgpu.controller.provisioning.Leadership;
import io.elasticgpu.controller.webhook.AdmissionWebhook;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running controller replica, started the one way both {@code egpu controller} and the local cluster's demo start
 * it: the dashboard and its metrics (every replica, the leader or not), the admission webhook (every replica too: they
 * share its CA through a Secret, so the Service may send an admission to any of them and a leader change loses none),
 * then the controller, at once or while this replica leads the Lease. {@link #close} stops them in the reverse order.
 */
public final class ControllerService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ControllerService.class);

    /** Started parts, the last started first. */
    private final Deque<AutoCloseable> parts;

    private final DashboardServer dashboard;
    private final Optional<AdmissionWebhook> webhook;
    private final AtomicReference<ElasticGPUController> leading;
    private final CompletableFuture<Void> lost;

    private ControllerService(
            Deque<AutoCloseable> parts,
            DashboardServer dashboard,
            Optional<AdmissionWebhook> webhook,
            AtomicReference<ElasticGPUController> leading,
            CompletableFuture<Void> lost) {
        this.parts = parts;
        this.dashboard = dashboard;
        this.webhook = webhook;
        this.leading = leading;
        this.lost = lost;
    }

    /**
     * Starts the replica against the API server of {@code client}; the CRDs must be installed
     * ({@link io.elasticgpu.controller.provisioning.InstalledCrds}).
     *
     * @throws java.io.UncheckedIOException when the dashboard's or the webhook's address cannot be bound
     */
    public static ControllerService start(KubernetesClient client, ControllerConfig config) {
        Deque<AutoCloseable> parts = new ArrayDeque<>();
        AtomicReference<ElasticGPUController> leading = new AtomicReference<>();
        try {
            ClusterWatch watch = ClusterWatch.start(client, config.models());
            parts.push(watch);
            DashboardServer dashboard = DashboardServer.start(
                    config.httpListen().socketAddress(),
                    watch,
                    watch::synced,
                    new ControllerMetrics(watch, () -> leads(leading), () -> syncs(leading)));
            parts.push(dashboard);
            Optional<AdmissionWebhook> webhook = config.webhook().map(w -> AdmissionWebhook.start(client, w));
            webhook.ifPresent(parts::push);
            CompletableFuture<Void> lost;
            if (config.leaderElection()) {
                Leadership.Election election = Leadership.of(config.leaseNamespace(), identity())
                        .run(client, () -> controller(client, config, leading));
                parts.push(election);
                lost = election.lost();
            } else {
                ElasticGPUController controller = controller(client, config, leading);
                parts.push(controller);
                controller.start();
                lost = new CompletableFuture<>();
            }
            return new ControllerService(parts, dashboard, webhook, leading, lost);
        } catch (RuntimeException e) {
            closeAll(parts);
            throw e;
        }
    }

    /** What only the leader does: keep ElasticGPUs and claims in step with the pods. */
    private static ElasticGPUController controller(
            KubernetesClient client, ControllerConfig config, AtomicReference<ElasticGPUController> leading) {
        ElasticGPUController controller = new ElasticGPUController(client, config.resync());
        leading.set(controller);
        return controller;
    }

    /** The pid tells replicas on one host apart in the Lease (and lets a test find the leader's process). */
    private static String identity() {
        return Objects.requireNonNullElseGet(System.getenv("HOSTNAME"), () -> "egpu-controller") + "-"
                + ProcessHandle.current().pid() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
    }

    private static boolean leads(AtomicReference<ElasticGPUController> leading) {
        ElasticGPUController controller = leading.get();
        return controller != null && controller.running();
    }

    private static long syncs(AtomicReference<ElasticGPUController> leading) {
        ElasticGPUController controller = leading.get();
        return controller == null ? 0 : controller.syncs();
    }

    /** Whether this replica runs the controller now. */
    public boolean leads() {
        return leads(leading);
    }

    /** Completes when this replica led and lost the Lease (its controller stopped); never without leader election. */
    public CompletableFuture<Void> lost() {
        return lost;
    }

    /** The port the dashboard is served on: the one asked for, or the one chosen for port 0. */
    public int dashboardPort() {
        return dashboard.port();
    }

    /** The admission webhook, when it is served. */
    public Optional<AdmissionWebhook> webhook() {
        return webhook;
    }

    /** Stops the controller (giving the Lease up), then the webhook, the dashboard and the informers. */
    @Override
    public void close() {
        closeAll(parts);
    }

    private static void closeAll(Deque<AutoCloseable> parts) {
        while (!parts.isEmpty()) {
            AutoCloseable part = parts.pop();
            try {
                part.close();
            } catch (Exception e) {
                LOG.warn("closing {}: {}", part.getClass().getSimpleName(), e.getMessage());
            }
        }
    }
}
