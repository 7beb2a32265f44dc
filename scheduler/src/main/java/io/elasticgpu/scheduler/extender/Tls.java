package io.elasticgpu.scheduler.extender;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/** A server TLS context from PEM files: a certificate chain and a PKCS #8 ({@code PRIVATE KEY}) RSA or EC key. */
final class Tls {

    private Tls() {}

    static SSLContext server(Path certificateFile, Path keyFile) {
        try {
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(certificateFile)) {
                chain = CertificateFactory.getInstance("X.509")
                        .generateCertificates(in)
                        .toArray(Certificate[]::new);
            }
            if (chain.length == 0) {
                throw new IllegalArgumentException("no certificate in " + certificateFile);
            }
            PrivateKey key = key(keyFile);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, new char[0], chain);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, new char[0]);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(kmf.getKeyManagers(), null, null);
            return tls;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot serve TLS with %s and %s: %s".formatted(certificateFile, keyFile, e.getMessage()), e);
        }
    }

    private static PrivateKey key(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file);
        if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new IllegalArgumentException(("%s is not a PKCS #8 key (-----BEGIN PRIVATE KEY-----); convert it with"
                            + " openssl pkcs8 -topk8 -nocrypt")
                    .formatted(file));
        }
        String body = pem.substring(
                pem.indexOf("-----BEGIN PRIVATE KEY-----") + 27, pem.indexOf("-----END PRIVATE KEY-----"));
        PKCS8EncodedKeySpec spec =
                new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(body));
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(spec);
        } catch (GeneralSecurityException notRsa) {
            return KeyFactory.getInstance("EC").generatePrivate(spec);
        }
    }
}
