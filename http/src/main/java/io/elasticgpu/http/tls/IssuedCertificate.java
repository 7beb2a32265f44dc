package io.elasticgpu.http.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemObject;

/** A certificate and its key pair, and their PEM forms. */
public record IssuedCertificate(X509Certificate certificate, KeyPair keys) {

    public String certificatePem() {
        return pem(certificate);
    }

    /** The private key as PKCS #8 ({@code PRIVATE KEY}), which Go, the JDK and fabric8 all read. */
    public String privateKeyPem() {
        try {
            return pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate());
        } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads back what {@link #certificatePem()} and {@link #privateKeyPem()} wrote (or PKCS #1 / SEC 1 keys).
     *
     * @throws IllegalArgumentException saying which of the two is not what it should be, or that they do not match
     */
    public static IssuedCertificate fromPem(String certificatePem, String privateKeyPem) {
        X509Certificate certificate;
        PrivateKey key;
        try (PEMParser certs = new PEMParser(new StringReader(certificatePem));
                PEMParser keys = new PEMParser(new StringReader(privateKeyPem))) {
            if (!(certs.readObject() instanceof X509CertificateHolder holder)) {
                throw new IllegalArgumentException("not a PEM certificate (BEGIN CERTIFICATE)");
            }
            certificate = new JcaX509CertificateConverter().getCertificate(holder);
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            key = switch (keys.readObject()) {
                case PrivateKeyInfo info -> converter.getPrivateKey(info);
                case PEMKeyPair pair -> converter.getKeyPair(pair).getPrivate();
                case null, default -> throw new IllegalArgumentException("not a PEM private key (BEGIN PRIVATE KEY)");
            };
        } catch (IOException | CertificateException | RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw (IllegalArgumentException) e;
            }
            throw new IllegalArgumentException("unreadable PEM: " + e.getMessage(), e);
        }
        if (!key.getAlgorithm().equals(certificate.getPublicKey().getAlgorithm())) {
            throw new IllegalArgumentException("the private key (%s) does not belong to the certificate (%s)"
                    .formatted(key.getAlgorithm(), certificate.getPublicKey().getAlgorithm()));
        }
        return new IssuedCertificate(certificate, new KeyPair(certificate.getPublicKey(), key));
    }

    private static String pem(Object object) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            if (object instanceof PemObject pemObject) {
                writer.writeObject(pemObject);
            } else {
                writer.writeObject(object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
