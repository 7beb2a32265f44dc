package io.elasticgpu.e2e.pki;

import java.security.KeyPair;
import java.security.cert.X509Certificate;

/** A certificate and its key pair. */
public record IssuedCertificate(X509Certificate certificate, KeyPair keys) {

    public String certificatePem() {
        try {
            return Pem.encode("CERTIFICATE", certificate.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The private key as PKCS #8 ({@code PRIVATE KEY}), which Go, the JDK and fabric8 all read. */
    public String privateKeyPem() {
        return Pem.encode("PRIVATE KEY", keys.getPrivate().getEncoded());
    }
}
