package io.elasticgpu.localcluster.controlplane;

import io.elasticgpu.http.tls.CertificateAuthority;
import io.elasticgpu.http.tls.CertificateAuthority.Usage;
import io.elasticgpu.http.tls.IssuedCertificate;
import io.elasticgpu.http.tls.Pem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Every certificate and key of a local control plane, written under {@code <dir>/pki}: a CA; the apiserver's serving
 * certificate; serving certificates for the controller manager and the scheduler (so probes can verify them);
 * client certificates for the admin ({@code system:masters}), the scheduler and the controller manager under their
 * bootstrap RBAC identities; and the RSA key pair that signs service-account tokens.
 */
public final class Credentials {

    static final Duration VALIDITY = Duration.ofDays(365);
    /** Names the apiserver answers to: loopback, and the in-cluster names a service account sees. */
    static final List<String> APISERVER_NAMES = List.of(
            "127.0.0.1",
            "localhost",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
            "10.96.0.1");

    private final Path dir;
    private final CertificateAuthority ca;
    private final IssuedCertificate admin;

    private Credentials(Path dir, CertificateAuthority ca, IssuedCertificate admin) {
        this.dir = dir;
        this.ca = ca;
        this.admin = admin;
    }

    static Credentials create(Path workDir, InstantSource clock) {
        Path dir = workDir.resolve("pki");
        CertificateAuthority ca = CertificateAuthority.create("elastic-gpu-e2e-ca", VALIDITY, clock);
        IssuedCertificate admin =
                ca.issue("elastic-gpu-admin", "system:masters", List.of(Usage.CLIENT), List.of(), VALIDITY);
        Credentials c = new Credentials(dir, ca, admin);
        c.write("ca", ca.certificate());
        c.write("admin", admin);
        c.write("apiserver", ca.issue("kube-apiserver", null, List.of(Usage.SERVER), APISERVER_NAMES, VALIDITY));
        c.write(
                "scheduler",
                ca.issue(
                        "system:kube-scheduler",
                        null,
                        List.of(Usage.CLIENT, Usage.SERVER),
                        List.of("127.0.0.1", "localhost"),
                        VALIDITY));
        c.write(
                "controller-manager",
                ca.issue(
                        "system:kube-controller-manager",
                        null,
                        List.of(Usage.CLIENT, Usage.SERVER),
                        List.of("127.0.0.1", "localhost"),
                        VALIDITY));
        // The front proxy's identity: lets the apiserver trust aggregated-API requests and lets the scheduler and
        // the controller manager read their request-header configuration, as in a kubeadm cluster.
        c.write("front-proxy-client", ca.issue("front-proxy-client", null, List.of(Usage.CLIENT), List.of(), VALIDITY));
        // The apiserver's identity towards kubelets (logs, exec), which a real node's kubelet authenticates.
        c.write(
                "apiserver-kubelet-client",
                ca.issue(
                        "kube-apiserver-kubelet-client", "system:masters", List.of(Usage.CLIENT), List.of(), VALIDITY));
        c.writeServiceAccountKeys();
        return c;
    }

    public Path dir() {
        return dir;
    }

    public Path certificate(String name) {
        return dir.resolve(name + ".crt");
    }

    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    public CertificateAuthority authority() {
        return ca;
    }

    public String caPem() {
        return ca.certificate().certificatePem();
    }

    public String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** TLS that trusts our CA and presents the admin's client certificate: for probing the apiserver. */
    public SSLContext adminTls() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca.certificate().certificate());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            char[] password = "e2e".toCharArray();
            keys.setKeyEntry("admin", admin.keys().getPrivate(), password, new Certificate[] {
                admin.certificate(), ca.certificate().certificate()
            });
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return tls;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build TLS for the admin client", e);
        }
    }

    private void write(String name, IssuedCertificate issued) {
        writeFile(name + ".crt", issued.certificatePem());
        writeFile(name + ".key", issued.privateKeyPem());
    }

    private void writeServiceAccountKeys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair keys = generator.generateKeyPair();
            writeFile("sa.key", Pem.encode("PRIVATE KEY", keys.getPrivate().getEncoded()));
            writeFile("sa.pub", Pem.encode("PUBLIC KEY", keys.getPublic().getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the service-account key", e);
        }
    }

    private void writeFile(String name, String content) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(name), e);
        }
    }
}
