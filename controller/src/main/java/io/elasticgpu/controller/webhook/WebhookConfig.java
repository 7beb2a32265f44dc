package io.elasticgpu.controller.webhook;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;

/**
 * How to run the admission webhook: where to listen, how the kube-apiserver reaches it, and how long its serving
 * certificates live. Required parts in the factories, optional ones as {@code withX}.
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
public record WebhookConfig(InetSocketAddress listen, Target target, Duration certificateLifetime, Duration rotationCheck,
                            String configurationName, InstantSource clock, SecretRef caSecret, ShareAdmission shares) {

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
                    throw new IllegalArgumentException("port must be 0..65535, was " + port);
                }
            }

            /** At the port listened on. */
            public Url(String host) {
                this(host, 0);
            }
        }
    }

    public WebhookConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(configurationName, "configurationName");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(caSecret, "caSecret");
        Objects.requireNonNull(shares, "shares");
        if (certificateLifetime.compareTo(Duration.ofMinutes(3)) < 0) {
            throw new IllegalArgumentException("certificateLifetime must be at least 3 minutes, was " + certificateLifetime);
        }
        if (rotationCheck.isNegative() || rotationCheck.isZero()) {
            throw new IllegalArgumentException("rotationCheck must be positive, was " + rotationCheck);
        }
    }

    /** Behind Service {@code name} in {@code namespace}, port 443; certificates for 24 hours. */
    public static WebhookConfig forService(InetSocketAddress listen, String name, String namespace) {
        return new WebhookConfig(listen, new Target.Service(name, namespace, 443), Duration.ofHours(24),
                Duration.ofMinutes(1), CONFIGURATION_NAME, InstantSource.system(), new SecretRef(namespace, CA_SECRET_NAME),
                ShareAdmission.NONE);
    }

    /**
     * Called directly at {@code https://<host>:<listen port>/mutate-pods}; certificates for 24 hours; the CA kept in
     * Secret {@value #CA_SECRET_NAME} of namespace {@code default}.
     */
    public static WebhookConfig forUrl(InetSocketAddress listen, String host) {
        return new WebhookConfig(listen, new Target.Url(host), Duration.ofHours(24), Duration.ofMinutes(1),
                CONFIGURATION_NAME, InstantSource.system(), new SecretRef("default", CA_SECRET_NAME), ShareAdmission.NONE);
    }

    /** Registered at {@code https://<host>:<port>}, e.g. a balancer in front of several replicas. */
    public WebhookConfig withUrl(String host, int port) {
        return new WebhookConfig(listen, new Target.Url(host, port), certificateLifetime, rotationCheck, configurationName,
                clock, caSecret, shares);
    }

    public WebhookConfig withCaSecret(String namespace, String name) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, configurationName, clock,
                new SecretRef(namespace, name), shares);
    }

    public WebhookConfig withCertificateLifetime(Duration lifetime) {
        return new WebhookConfig(listen, target, lifetime, rotationCheck, configurationName, clock, caSecret, shares);
    }

    public WebhookConfig withRotationCheck(Duration every) {
        return new WebhookConfig(listen, target, certificateLifetime, every, configurationName, clock, caSecret, shares);
    }

    public WebhookConfig withConfigurationName(String name) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, name, clock, caSecret, shares);
    }

    public WebhookConfig withClock(InstantSource source) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, configurationName, source, caSecret, shares);
    }

    /**
     * Pods asking GPU slices checked against the node agents' isolation ({@code --isolation}) and units
     * ({@code --memory-block-mib}, {@code --aliyun-unit-mib}); {@link ShareAdmission#NONE} by default.
     */
    public WebhookConfig withShares(ShareAdmission admission) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, configurationName, clock, caSecret,
                admission);
    }

    /** The names the serving certificate carries. */
    List<String> certificateNames() {
        return switch (target) {
            case Target.Service s -> List.of(s.name() + "." + s.namespace() + ".svc",
                    s.name() + "." + s.namespace() + ".svc.cluster.local");
            case Target.Url u -> List.of(u.host());
        };
    }
}
