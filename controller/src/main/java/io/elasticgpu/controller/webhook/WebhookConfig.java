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
 */
public record WebhookConfig(InetSocketAddress listen, Target target, Duration certificateLifetime, Duration rotationCheck,
                            String configurationName, InstantSource clock) {

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
         * Directly, at {@code https://<host>:<the port listened on>/mutate-pods} (an apiserver on the same host in
         * tests, or a webhook outside the cluster); the certificate names {@code host}, an IP address or a DNS name.
         */
        record Url(String host) implements Target {
            public Url {
                Objects.requireNonNull(host, "host");
            }
        }
    }

    public WebhookConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(configurationName, "configurationName");
        Objects.requireNonNull(clock, "clock");
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
                Duration.ofMinutes(1), CONFIGURATION_NAME, InstantSource.system());
    }

    /** Called directly at {@code https://<host>:<listen port>/mutate-pods}; certificates for 24 hours. */
    public static WebhookConfig forUrl(InetSocketAddress listen, String host) {
        return new WebhookConfig(listen, new Target.Url(host), Duration.ofHours(24), Duration.ofMinutes(1),
                CONFIGURATION_NAME, InstantSource.system());
    }

    public WebhookConfig withCertificateLifetime(Duration lifetime) {
        return new WebhookConfig(listen, target, lifetime, rotationCheck, configurationName, clock);
    }

    public WebhookConfig withRotationCheck(Duration every) {
        return new WebhookConfig(listen, target, certificateLifetime, every, configurationName, clock);
    }

    public WebhookConfig withConfigurationName(String name) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, name, clock);
    }

    public WebhookConfig withClock(InstantSource source) {
        return new WebhookConfig(listen, target, certificateLifetime, rotationCheck, configurationName, source);
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
