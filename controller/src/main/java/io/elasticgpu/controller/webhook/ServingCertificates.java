package io.elasticgpu.controller.webhook;

import io.elasticgpu.http.tls.CertificateAuthority;
import io.elasticgpu.http.tls.IssuedCertificate;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The webhook's CA and this replica's current serving certificate, renewed before it expires. The CA is shared by
 * the replicas ({@link WebhookCa}); the serving certificate lives {@code lifetime} and is replaced by
 * {@link #rotateIfDue()} once less than a third of its lifetime remains. New TLS handshakes pick up the new
 * certificate through {@link #keyManager()}, which reads an {@link AtomicReference}: no restart, no lock.
 * Thread-safe. Time comes only from the {@link InstantSource} given.
 */
final class ServingCertificates {

    /** Ten years: the CA is kept in a Secret; deleting the Secret and restarting the replicas makes a new one. */
    static final Duration CA_LIFETIME = Duration.ofDays(3650);

    private static final String ALIAS_PREFIX = "serving-";

    private final CertificateAuthority authority;
    private final List<String> names;
    private final Duration lifetime;
    private final InstantSource clock;
    private final AtomicReference<Generation> current = new AtomicReference<>();

    /**
     * The current certificate and the one before it. A handshake chooses an alias, then asks for its chain and its
     * key in two calls; naming the generation in the alias keeps the pair matched across a rotation in between.
     */
    private record Generation(long number, IssuedCertificate issued, IssuedCertificate previous) {
        IssuedCertificate lookup(String alias) {
            if ((ALIAS_PREFIX + number).equals(alias)) {
                return issued;
            }
            return (ALIAS_PREFIX + (number - 1)).equals(alias) ? previous : null;
        }
    }

    /**
     * @param names    subject alternative names of the serving certificate, e.g. {@code egpu-webhook.egpu-system.svc}
     *                 or {@code 127.0.0.1}
     * @param lifetime how long each serving certificate is valid
     */
    ServingCertificates(List<String> names, Duration lifetime, InstantSource clock) {
        this(CertificateAuthority.create("elastic-gpu-webhook-ca", CA_LIFETIME, clock), names, lifetime, clock);
    }

    /** @param authority the CA to issue from: {@link WebhookCa#shared}, the same for every replica */
    ServingCertificates(CertificateAuthority authority, List<String> names, Duration lifetime, InstantSource clock) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("the serving certificate needs at least one DNS name or IP address");
        }
        if (lifetime.compareTo(Duration.ofMinutes(3)) < 0) {
            throw new IllegalArgumentException(
                    "certificate lifetime must be at least 3 minutes (it is backdated 1 minute for clock skew), was "
                            + lifetime);
        }
        this.names = List.copyOf(names);
        this.lifetime = Objects.requireNonNull(lifetime, "lifetime");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.authority = Objects.requireNonNull(authority, "authority");
        current.set(new Generation(1, issue(), null));
    }

    /** The CA certificate as PEM, for the webhook's {@code caBundle}. */
    String caPem() {
        return authority.certificate().certificatePem();
    }

    X509Certificate ca() {
        return authority.certificate().certificate();
    }

    /** The certificate the next handshake serves. */
    X509Certificate serving() {
        return current.get().issued().certificate();
    }

    /** When the current certificate is due for renewal: its expiry less a third of the lifetime. */
    Instant renewAt() {
        return serving().getNotAfter().toInstant().minus(lifetime.dividedBy(3));
    }

    /** Issues a new serving certificate if the current one is due; returns whether it did. */
    boolean rotateIfDue() {
        Instant now = clock.instant();
        if (now.isBefore(renewAt())) {
            return false;
        }
        IssuedCertificate next = issue();
        current.updateAndGet(g -> new Generation(g.number() + 1, next, g.issued()));
        return true;
    }

    /** A serving certificate for {@link #names}; the first name is also its CN. */
    private IssuedCertificate issue() {
        return authority.issue(
                names.getFirst(),
                null,
                List.of(CertificateAuthority.Usage.SERVER),
                names,
                lifetime,
                CertificateAuthority.KeyType.EC);
    }

    /** Serves whatever certificate is current at handshake time. */
    X509ExtendedKeyManager keyManager() {
        return new X509ExtendedKeyManager() {
            @Override
            public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
                return chooseServerAlias(keyType, issuers, null);
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                // Our keys are EC; TLS 1.2 may ask for "EC_EC" (ECDH suites signed with ECDSA) as well as "EC".
                return keyType != null && (keyType.equals("EC") || keyType.startsWith("EC_"))
                        ? ALIAS_PREFIX + current.get().number()
                        : null;
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                String alias = chooseServerAlias(keyType, issuers, null);
                return alias == null ? null : new String[] {alias};
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                IssuedCertificate issued = current.get().lookup(alias);
                return issued == null ? null : new X509Certificate[] {issued.certificate()};
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                IssuedCertificate issued = current.get().lookup(alias);
                return issued == null ? null : issued.keys().getPrivate();
            }

            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return null;
            }
        };
    }
}
