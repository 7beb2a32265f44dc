package io.elasticgpu.controller.service;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.controller.webhook.WebhookConfig;
import io.elasticgpu.core.model.ModelTable;
import io.elasticgpu.http.ListenAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * How the controller runs, made with {@link #builder}. Immutable; checked on construction, and a message names the
 * flag, shows the value and says the fix.
 *
 * @param httpListen     where every replica serves the dashboard, {@code /metrics} and {@code /healthz}
 *                       ({@code --http-listen}; port 0: any free port)
 * @param leaseNamespace the namespace of the Lease the replicas elect their leader on ({@code --namespace-for-lease})
 * @param leaderElection whether to run the controller only while leading ({@code --no-leader-election}: false, at
 *                       once, for a single replica)
 * @param webhook        the admission webhook every replica serves, if any ({@code --no-webhook}: none)
 * @param resync         how often the controller goes over every pod and ElasticGPU even without events
 * @param models         the card models' peak TFLOPS the dashboard counts free TFLOPS with ({@code --model-table}
 *                       over the shipped table; the webhook's {@link WebhookConfig} carries the same table)
 */
public record ControllerConfig(
        ListenAddress httpListen,
        String leaseNamespace,
        boolean leaderElection,
        Optional<WebhookConfig> webhook,
        Duration resync,
        ModelTable models) {

    /**
     * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix
     */
    public ControllerConfig {
        requireNonNull(httpListen, "httpListen");
        requireNonNull(leaseNamespace, "leaseNamespace");
        requireNonNull(webhook, "webhook");
        requireNonNull(resync, "resync");
        requireNonNull(models, "models");
        if (!leaseNamespace.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
            throw new IllegalArgumentException(("controller: --namespace-for-lease must be a namespace name (lower-case"
                            + " letters, digits and '-'), was \"%s\"; e.g. elastic-gpu-system")
                    .formatted(leaseNamespace));
        }
        if (resync.isNegative() || resync.isZero()) {
            throw new IllegalArgumentException(
                    "controller: the resync period must be positive, was " + resync + "; e.g. PT1M");
        }
    }

    /**
     * The flags' defaults, but no webhook: the dashboard on 0.0.0.0:8080, leader election on the Lease in
     * {@code elastic-gpu-system}, a resync every minute.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default until changed; {@link #build} checks them. Not thread-safe. */
    public static final class Builder {
        private ListenAddress httpListen = new ListenAddress("0.0.0.0", 8080);
        private String leaseNamespace = "elastic-gpu-system";
        private boolean leaderElection = true;
        private Optional<WebhookConfig> webhook = Optional.empty();
        private Duration resync = Duration.ofMinutes(1);
        private ModelTable models = ModelTable.shipped();

        private Builder() {}

        public Builder withHttpListen(ListenAddress address) {
            httpListen = address;
            return this;
        }

        public Builder withLeaseNamespace(String namespace) {
            leaseNamespace = namespace;
            return this;
        }

        /** Run the controller at once, without a Lease; only for a single replica. */
        public Builder withoutLeaderElection() {
            leaderElection = false;
            return this;
        }

        public Builder withWebhook(WebhookConfig config) {
            webhook = Optional.of(config);
            return this;
        }

        public Builder withResync(Duration period) {
            resync = period;
            return this;
        }

        /** The shipped model table with an operator's ({@code --model-table}). */
        public Builder withModels(ModelTable table) {
            models = table;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix */
        public ControllerConfig build() {
            return new ControllerConfig(httpListen, leaseNamespace, leaderElection, webhook, resync, models);
        }
    }
}
