package io.elasticgpu.controller.provisioning;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on the Lease {@code egpu-controller} in one namespace (fabric8's {@link LeaderElector}): only the
 * leader runs the controller, so two or more replicas can run. A replica that loses the lease stops its controller
 * and {@link #lost()} completes (the command then exits, and its Deployment restarts it as a follower).
 *
 * @param leaseDuration how long a lease holds without renewal (15 s); renewDeadline and retryPeriod follow from it
 */
public record Leadership(String namespace, String identity, Duration leaseDuration) {

    public static final String LEASE_NAME = "egpu-controller";

    public Leadership {
        requireNonNull(namespace, "namespace");
        requireNonNull(identity, "identity");
        requireNonNull(leaseDuration, "leaseDuration");
    }

    public static Leadership of(String namespace, String identity) {
        return new Leadership(namespace, identity, Duration.ofSeconds(15));
    }

    /** A running election; {@link #close()} gives the lease up and stops the controller if this replica leads. */
    public static final class Election implements AutoCloseable {
        private final CompletableFuture<Void> lost = new CompletableFuture<>();
        private final Supplier<ElasticGPUController> controllers;
        private final String identity;
        private ElasticGPUController controller;
        private CompletableFuture<?> running;
        private boolean closed;

        private Election(String identity, Supplier<ElasticGPUController> controllers) {
            this.identity = identity;
            this.controllers = controllers;
        }

        /** Completes when this replica led and lost the lease, or the election ended. */
        public CompletableFuture<Void> lost() {
            return lost;
        }

        private void lead() {
            ElasticGPUController c;
            synchronized (this) {
                if (closed) {
                    return;
                }
                c = controller = controllers.get();
            }
            LOG.info("{} leads", identity);
            c.start();
        }

        private void stopLeading() {
            LOG.warn("{} no longer leads; stopping", identity);
            stopController();
            lost.complete(null);
        }

        private void stopController() {
            ElasticGPUController c;
            synchronized (this) {
                c = controller;
                controller = null;
            }
            if (c != null) {
                c.close();
            }
        }

        @Override
        public void close() {
            CompletableFuture<?> r;
            synchronized (this) {
                closed = true;
                r = running;
            }
            if (r != null) {
                r.cancel(true);
            }
            stopController();
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

    /** Campaigns in the background; when elected, starts a controller from {@code controllers}. */
    public Election run(KubernetesClient client, Supplier<ElasticGPUController> controllers) {
        Election election = new Election(identity, controllers);
        LeaderElector elector = client.leaderElector()
                .withConfig(new LeaderElectionConfigBuilder()
                        .withName(LEASE_NAME)
                        .withLock(new LeaseLock(namespace, LEASE_NAME, identity))
                        .withLeaseDuration(leaseDuration)
                        .withRenewDeadline(leaseDuration.multipliedBy(2).dividedBy(3))
                        .withRetryPeriod(leaseDuration.dividedBy(7))
                        .withReleaseOnCancel(true)
                        .withLeaderCallbacks(new LeaderCallbacks(
                                election::lead,
                                election::stopLeading,
                                leader -> LOG.info("leader of {}/{} is {}", namespace, LEASE_NAME, leader)))
                        .build())
                .build();
        CompletableFuture<?> running = elector.start();
        synchronized (election) {
            election.running = running;
        }
        running.whenComplete((v, e) -> election.lost.complete(null));
        return election;
    }
}
