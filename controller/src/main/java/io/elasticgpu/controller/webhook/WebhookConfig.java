package io.elasticgpu.controller.webhook;

import io.elasticgpu.http.ListenAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;

/**
 * How to run the admission webhook: where to listen, how the kube-apiserver reaches it, and how long its serving
 * certificates live. Made with a builder: the required parts in its factories ({@link #forService}, {@link #forUrl}),
 * optional ones as {@code withX}. Immutable; checked on construction, and a message names the flag, shows the value
 * and says the fix.
 *
 * @param listen              the address the HTTPS server binds (port 0: any free port)
 * @param target              how the apiserver calls the webhook (written into the MutatingWebhookConfiguration)
 * @param certificateLifetime validity of each serving certificate; renewed when a third of it remains
 * @param rotationCheck       how often to check whether the certificate is due
 * @param configurationName   the MutatingWebhookConfiguration created or updated
 * @param clock               the time certificates are issued and checked against
 * @param caSecret            the Secret that keeps the CA every replica issues its serving certificates from
 * @param shares              what GPU shares the node agents can hold, by their isolation and units: which pods
 *                            asking GPU slices are refused ({@link ShareAdmission}) and which are sent to the webhook
 */
public record WebhookConfig(
        ListenAddress listen,
        Target target,
        Duration certificateLifetime,
        Duration rotationCheck,
        String configurationName,
        InstantSource clock,
        SecretRef caSecret,
        ShareAdmission shares) {

    /** The default name of the Secret holding the webhook's CA. */
    public static final String CA_SECRET_NAME = "elastic-gpu-webhook-ca";

    /** A Secret by namespace and name. */
    public record SecretRef(String namespace, String name) {
        public SecretRef {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(name, "name");
        }
    }

    /** The default name of the MutatingWebhookConfiguration. */
    public static final String CONFIGURATION_NAME = "elastic-gpu";
    /** The path the webhook serves admission reviews on. */
    public static final String PATH = "/mutate-pods";

    /** How the apiserver reaches the webhook. */
    public sealed interface Target {
        /**
         * Through a Service: {@code https://<name>.<namespace>.svc:<port>/mutate-pods}; the certificate names
         * {@code <name>.<namespace>.svc} and {@code <name>.<namespace>.svc.cluster.local}.
         */
        record Service(String name, String namespace, int port) implements Target {
            public Service {
                Objects.requireNonNull(name, "name");
                Objects.requireNonNull(namespace, "namespace");
            }
        }

        /**
         * Directly, at {@code https://<host>:<port>/mutate-pods} (an apiserver on the same host in tests, or a webhook
         * outside the cluster; port 0: the port listened on, else that of a balancer in front of several replicas);
         * the certificate names {@code host}, an IP address or a DNS name.
         */
        record Url(String host, int port) implements Target {
            public Url {
                Objects.requireNonNull(host, "host");
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException(
                            "webhook: the port of --webhook-url must be 0..65535, was " + port);
                }
            }

            /** At the port listened on. */
            public Url(String host) {
                this(host, 0);
            }
        }
    }

    /**
     * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix
     */
    public WebhookConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(certificateLifetime, "certificateLifetime");
        Objects.requireNonNull(rotationCheck, "rotationCheck");
        Objects.requireNonNull(configurationName, "configurationName");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(caSecret, "caSecret");
        Objects.requireNonNull(shares, "shares");
        switch (target) {
            case Target.Service s -> {
                name("--webhook-service", "a Service name", s.name(), LABEL, "elastic-gpu-webhook");
                name("--namespace-for-lease", "a namespace name", s.namespace(), LABEL, "elastic-gpu-system");
            }
            case Target.Url u -> {
                if (u.host().isBlank()) {
                    throw new IllegalArgumentException("webhook: --webhook-url must name the host the apiserver calls,"
                            + " was \"%s\"; e.g. 10.0.0.5:9443".formatted(u.host()));
                }
            }
        }
        name(
                "the CA's Secret namespace (--namespace-for-lease)",
                "a namespace name",
                caSecret.namespace(),
                LABEL,
                "elastic-gpu-system");
        name("the CA's Secret", "a Secret name", caSecret.name(), SUBDOMAIN, CA_SECRET_NAME);
        name(
                "configurationName",
                "a MutatingWebhookConfiguration name",
                configurationName,
                SUBDOMAIN,
                CONFIGURATION_NAME);
        if (certificateLifetime.compareTo(Duration.ofMinutes(3)) < 0) {
            throw new IllegalArgumentException("webhook: certificateLifetime must be at least 3 minutes, was "
                    + certificateLifetime + "; a certificate is renewed when a third of it remains, e.g. PT24H");
        }
        if (rotationCheck.isNegative() || rotationCheck.isZero()) {
            throw new IllegalArgumentException(
                    "webhook: rotationCheck must be positive, was " + rotationCheck + "; e.g. PT1M");
        }
    }

    /** A DNS-1123 label: Service and namespace names. */
    private static final String LABEL = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
    /** A DNS-1123 subdomain: most other object names. */
    private static final String SUBDOMAIN = LABEL + "(\\." + LABEL + ")*";

    private static void name(String setting, String what, String value, String pattern, String example) {
        if (!value.matches(pattern) || value.length() > 253) {
            throw new IllegalArgumentException(
                    "webhook: %s must be %s (lower-case letters, digits and '-'), was \"%s\"; e.g. %s"
                            .formatted(setting, what, value, example));
        }
    }

    /**
     * Behind Service {@code name} in {@code namespace} ({@code --webhook-service}, {@code --namespace-for-lease}),
     * port 443; certificates for 24 hours, from a CA kept in Secret {@value #CA_SECRET_NAME} of {@code namespace}.
     */
    public static Builder forService(ListenAddress listen, String name, String namespace) {
        return new Builder(listen, new Target.Service(name, namespace, 443), new SecretRef(namespace, CA_SECRET_NAME));
    }

    /**
     * Called directly at {@code https://<host>:<listen port>/mutate-pods}; certificates for 24 hours; the CA kept in
     * Secret {@value #CA_SECRET_NAME} of namespace {@code default}.
     */
    public static Builder forUrl(ListenAddress listen, String host) {
        return new Builder(listen, new Target.Url(host), new SecretRef("default", CA_SECRET_NAME));
    }

    /** The required parts given to {@link #forService} or {@link #forUrl}, the rest at their defaults until changed. */
    public static final class Builder {
        private final ListenAddress listen;
        private Target target;
        private SecretRef caSecret;
        private Duration certificateLifetime = Duration.ofHours(24);
        private Duration rotationCheck = Duration.ofMinutes(1);
        private String configurationName = CONFIGURATION_NAME;
        private InstantSource clock = InstantSource.system();
        private ShareAdmission shares = ShareAdmission.NONE;

        private Builder(ListenAddress listen, Target target, SecretRef caSecret) {
            this.listen = listen;
            this.target = target;
            this.caSecret = caSecret;
        }

        /**
         * Registered at {@code https://<host>:<port>} ({@code --webhook-url}), e.g. a balancer in front of several
         * replicas. */
        public Builder withUrl(String host, int port) {
            target = new Target.Url(host, port);
            return this;
        }

        public Builder withCaSecret(String namespace, String name) {
            caSecret = new SecretRef(namespace, name);
            return this;
        }

        public Builder withCertificateLifetime(Duration lifetime) {
            certificateLifetime = lifetime;
            return this;
        }

        public Builder withRotationCheck(Duration every) {
            rotationCheck = every;
            return this;
        }

        public Builder withConfigurationName(String name) {
            configurationName = name;
            return this;
        }

        public Builder withClock(InstantSource source) {
            clock = source;
            return this;
        }

        /**
         * Pods asking GPU slices checked against the node agents' isolation ({@code --isolation}) and units
         * ({@code --memory-block-mib}, {@code --aliyun-unit-mib}); {@link ShareAdmission#NONE} by default.
         */
        public Builder withShares(ShareAdmission admission) {
            shares = admission;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the flag of the first setting that is wrong, its value and the fix */
        public WebhookConfig build() {
            return new WebhookConfig(
                    listen, target, certificateLifetime, rotationCheck, configurationName, clock, caSecret, shares);
        }
    }

    /** The names the serving certificate carries. */
    List<String> certificateNames() {
        return switch (target) {
            case Target.Service s ->
                List.of(s.name() + "." + s.namespace() + ".svc", s.name() + "." + s.namespace() + ".svc.cluster.local");
            case Target.Url u -> List.of(u.host());
        };
    }
}
