package io.elasticgpu.e2e.pki;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;

import org.junit.jupiter.api.Test;

class CertificateAuthorityTest {

    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-21T12:00:00Z"));
    private final CertificateAuthority ca = CertificateAuthority.create("elastic-gpu-e2e-ca", Duration.ofDays(30), CLOCK);

    @Test
    void theAuthorityIsASelfSignedCa() throws Exception {
        X509Certificate cert = ca.certificate().certificate();
        cert.verify(cert.getPublicKey());
        assertThat(cert.getBasicConstraints()).isEqualTo(Integer.MAX_VALUE);
        assertThat(cert.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=elastic-gpu-e2e-ca");
        assertThat(cert.getNotBefore().toInstant()).isEqualTo(Instant.parse("2026-11-21T11:59:00Z"));
        assertThat(cert.getNotAfter().toInstant()).isEqualTo(Instant.parse("2026-12-21T12:00:00Z"));
    }

    @Test
    void issuesServingCertificatesWithAlternativeNames() throws Exception {
        X509Certificate cert = ca.issue("kube-apiserver", null, List.of(CertificateAuthority.Usage.SERVER),
                List.of("localhost", "127.0.0.1", "kubernetes.default.svc"), Duration.ofDays(1)).certificate();
        cert.verify(ca.certificate().certificate().getPublicKey());
        assertThat(cert.getBasicConstraints()).isEqualTo(-1);
        assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(cert.getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)).toList())
                .containsExactly("localhost", "127.0.0.1", "kubernetes.default.svc");
        assertThat(cert.getIssuerX500Principal()).isEqualTo(ca.certificate().certificate().getSubjectX500Principal());
    }

    @Test
    void issuesClientCertificatesWhoseOrganizationIsTheGroup() throws Exception {
        X509Certificate cert = ca.issue("admin", "system:masters", List.of(CertificateAuthority.Usage.CLIENT), List.of(),
                Duration.ofDays(1)).certificate();
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=admin,O=system:masters");
        assertThat(cert.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.2");
    }

    @Test
    void writesPem() {
        IssuedCertificate issued = ca.certificate();
        assertThat(issued.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----\n").endsWith("-----END CERTIFICATE-----\n");
        assertThat(issued.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(issued.certificatePem().lines().filter(l -> !l.startsWith("-----")).allMatch(l -> l.length() <= 64)).isTrue();
    }

    @Test
    void encodesLengthsAndIdentifiersAsDerDoes() {
        // 2.5.4.3 -> 06 03 55 04 03 ; 1.2.840.10045.4.3.2 -> 06 08 2A 86 48 CE 3D 04 03 02
        assertThat(Der.oid("2.5.4.3")).containsExactly(0x06, 0x03, 0x55, 0x04, 0x03);
        assertThat(Der.oid("1.2.840.10045.4.3.2")).containsExactly(0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02);
        // 300 bytes: long form, two length bytes 0x01 0x2C
        assertThat(Der.tlv(0x04, new byte[300])).startsWith(0x04, 0x82, 0x01, 0x2c).hasSize(304);
    }
}
