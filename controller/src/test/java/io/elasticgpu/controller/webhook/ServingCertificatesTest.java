package io.elasticgpu.controller.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

/** The webhook's certificates: what they name, who signed them, and their renewal on a fake clock. */
class ServingCertificatesTest {

    /** A clock that moves only when told. */
    private static final class FakeClock implements InstantSource {
        private Instant now;

        FakeClock(Instant start) {
            now = start;
        }

        @Override
        public Instant instant() {
            return now;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }
    }

    // Certificates carry whole seconds; starting on one keeps the arithmetic below exact.
    private final FakeClock clock = new FakeClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));

    @Test
    void theServingCertificateNamesTheServiceAndIsSignedByTheCa() throws Exception {
        ServingCertificates certificates = new ServingCertificates(
                List.of("egpu-webhook.egpu-system.svc", "127.0.0.1"), Duration.ofHours(1), clock);
        X509Certificate serving = certificates.serving();

        serving.verify(certificates.ca().getPublicKey());
        assertThat(serving.getSubjectAlternativeNames())
                .containsExactly(List.of(2, "egpu-webhook.egpu-system.svc"), List.of(7, "127.0.0.1"));
        assertThat(serving.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(serving.getBasicConstraints()).isEqualTo(-1);
        assertThat(certificates.ca().getBasicConstraints()).isGreaterThanOrEqualTo(0);
        // Backdated one minute for clock skew, valid for the lifetime from now.
        assertThat(serving.getNotBefore().toInstant()).isEqualTo(clock.instant().minus(Duration.ofMinutes(1)));
        assertThat(serving.getNotAfter().toInstant()).isEqualTo(clock.instant().plus(Duration.ofHours(1)));
        assertThat(certificates.caPem())
                .startsWith("-----BEGIN CERTIFICATE-----\n")
                .endsWith("-----END CERTIFICATE-----\n");
    }

    @Test
    void theCertificateIsRenewedOnceLessThanAThirdOfItsLifetimeRemains() throws Exception {
        // Lifetime 30 min: issued at t0, expires at t0+30m, renewed from t0+30m − 30m/3 = t0+20m.
        ServingCertificates certificates = new ServingCertificates(List.of("127.0.0.1"), Duration.ofMinutes(30), clock);
        Instant t0 = clock.instant();
        X509Certificate first = certificates.serving();
        assertThat(certificates.renewAt()).isEqualTo(t0.plus(Duration.ofMinutes(20)));

        clock.advance(Duration.ofMinutes(19)); // 11 min left > 10: kept
        assertThat(certificates.rotateIfDue()).isFalse();
        assertThat(certificates.serving()).isEqualTo(first);

        clock.advance(Duration.ofMinutes(1)); // 10 min left: not more than a third, renewed
        assertThat(certificates.rotateIfDue()).isTrue();
        X509Certificate second = certificates.serving();
        assertThat(second).isNotEqualTo(first);
        assertThat(second.getPublicKey()).isNotEqualTo(first.getPublicKey());
        // t0+20m + 30m = t0+50m, by the same CA
        assertThat(second.getNotAfter().toInstant()).isEqualTo(t0.plus(Duration.ofMinutes(50)));
        second.verify(certificates.ca().getPublicKey());
        assertThat(certificates.renewAt()).isEqualTo(t0.plus(Duration.ofMinutes(40)));

        clock.advance(Duration.ofMinutes(19)); // t0+39m: 11 min left of the second
        assertThat(certificates.rotateIfDue()).isFalse();
    }

    @Test
    void aNewHandshakeGetsTheRenewedCertificateWithoutARestart() throws Exception {
        ServingCertificates certificates = new ServingCertificates(List.of("127.0.0.1"), Duration.ofMinutes(30), clock);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(new KeyManager[] {certificates.keyManager()}, null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.start();
        try {
            X509Certificate first = certificates.serving();
            assertThat(handshake(server.getAddress())).isEqualTo(first);

            clock.advance(Duration.ofMinutes(25));
            assertThat(certificates.rotateIfDue()).isTrue();

            assertThat(handshake(server.getAddress()))
                    .isEqualTo(certificates.serving())
                    .isNotEqualTo(first);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aLifetimeShorterThanTheSkewAllowanceIsRefused() {
        assertThatThrownBy(() -> new ServingCertificates(List.of("127.0.0.1"), Duration.ofMinutes(2), clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("certificate lifetime must be at least 3 minutes (it is backdated 1 minute for clock skew),"
                        + " was PT2M");
    }

    /**
     * The certificate the server presents to a fresh client (no session to resume). The client trusts anything: the
     * fake clock issues certificates in the future, and what is checked here is which certificate is served.
     */
    private static X509Certificate handshake(InetSocketAddress address) throws Exception {
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(
                null,
                new TrustManager[] {
                    new X509TrustManager() {
                        @Override
                        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                        @Override
                        public X509Certificate[] getAcceptedIssuers() {
                            return new X509Certificate[0];
                        }
                    }
                },
                null);
        try (SSLSocket socket =
                (SSLSocket) client.getSocketFactory().createSocket(address.getAddress(), address.getPort())) {
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }
}
