package io.elasticgpu.http.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class CertificateAuthorityTest {

    private final Instant now = Instant.parse("2026-11-25T10:00:00Z");
    private final CertificateAuthority ca =
            CertificateAuthority.create("test-ca", Duration.ofDays(10), InstantSource.fixed(now));

    @Test
    void aServerCertificateIsSignedByTheCaAndNamesEveryAddress() throws Exception {
        X509Certificate cert = ca.issue(
                        "webhook",
                        null,
                        List.of(CertificateAuthority.Usage.SERVER),
                        List.of("egpu-webhook.egpu-system.svc", "127.0.0.1"),
                        Duration.ofHours(1))
                .certificate();

        cert.verify(ca.certificate().certificate().getPublicKey());
        assertThat(cert.getSubjectAlternativeNames().stream()
                        .map(n -> (Object) n.get(1))
                        .toList())
                .containsExactly((Object) "egpu-webhook.egpu-system.svc", "127.0.0.1");
        assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(cert.getBasicConstraints()).isEqualTo(-1);
        assertThat(cert.getNotBefore().toInstant()).isEqualTo(now.minusSeconds(60));
        assertThat(cert.getNotAfter().toInstant()).isEqualTo(now.plus(Duration.ofHours(1)));
        assertThat(ca.certificate().certificate().getBasicConstraints()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void aClientCertificateCarriesItsGroupAndAnRsaKey() {
        IssuedCertificate admin = ca.issue(
                "elastic-gpu-admin",
                "system:masters",
                List.of(CertificateAuthority.Usage.CLIENT),
                List.of(),
                Duration.ofHours(1));
        assertThat(admin.certificate().getSubjectX500Principal().getName())
                .isEqualTo("CN=elastic-gpu-admin,O=system:masters");
        assertThat(admin.keys().getPrivate().getAlgorithm()).isEqualTo("RSA");
    }

    @Test
    void pemRoundTripsAndAKeptCaIssuesAgain() throws Exception {
        IssuedCertificate kept = IssuedCertificate.fromPem(
                ca.certificate().certificatePem(), ca.certificate().privateKeyPem());
        assertThat(kept.certificate()).isEqualTo(ca.certificate().certificate());
        assertThat(kept.keys().getPrivate().getEncoded())
                .isEqualTo(ca.certificate().keys().getPrivate().getEncoded());
        assertThat(ca.certificate().privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");

        X509Certificate again = CertificateAuthority.of(kept, InstantSource.fixed(now))
                .issue("x", null, List.of(CertificateAuthority.Usage.SERVER), List.of("x"), Duration.ofHours(1))
                .certificate();
        again.verify(ca.certificate().certificate().getPublicKey());
    }

    @Test
    void garbageAndALeafAreRefusedAsCaMaterialWithTheReason() {
        assertThatThrownBy(() -> IssuedCertificate.fromPem("garbage", "garbage"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BEGIN CERTIFICATE");
        IssuedCertificate leaf =
                ca.issue("x", null, List.of(CertificateAuthority.Usage.SERVER), List.of("x"), Duration.ofHours(1));
        assertThatThrownBy(() -> IssuedCertificate.fromPem(
                        leaf.certificatePem(), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CertificateAuthority.of(leaf, InstantSource.fixed(now)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a CA");
    }
}
