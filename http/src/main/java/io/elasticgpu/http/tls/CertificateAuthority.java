package io.elasticgpu.http.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority that issues server and client certificates, with BouncyCastle doing the X.509. Keys are
 * ECDSA P-256 unless asked for RSA; every certificate is backdated a minute for clock skew. Time comes only from the
 * {@link InstantSource} given. Thread-safe.
 */
public final class CertificateAuthority {

    private static final Duration SKEW = Duration.ofMinutes(1);

    /** What a leaf certificate is for. */
    public enum Usage {
        SERVER,
        CLIENT
    }

    /**
     * The key a leaf gets. Client certificates default to RSA: every client reads RSA keys, while some (fabric8's
     * kubeconfig loader among them) cannot read ECDSA keys in PKCS #8.
     */
    public enum KeyType {
        EC,
        RSA
    }

    private final IssuedCertificate self;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();

    private CertificateAuthority(IssuedCertificate self, InstantSource clock) {
        this.self = self;
        this.clock = clock;
    }

    /** A new authority named {@code commonName}, valid from now for {@code validity}. */
    public static CertificateAuthority create(String commonName, Duration validity, InstantSource clock) {
        KeyPair keys = newKeyPair(KeyType.EC);
        X500Name name = name(commonName, null);
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = builder(name, name, keys, clock.instant(), validity, new SecureRandom())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(
                            Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()));
            return new CertificateAuthority(new IssuedCertificate(sign(builder, keys), keys), clock);
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot make a CA certificate", e);
        }
    }

    /** An authority whose certificate and key were kept (in a Secret, say) and read back. */
    public static CertificateAuthority of(IssuedCertificate self, InstantSource clock) {
        if (self.certificate().getBasicConstraints() < 0) {
            throw new IllegalArgumentException("the certificate "
                    + self.certificate().getSubjectX500Principal() + " is not a CA (no basicConstraints cA=true)");
        }
        return new CertificateAuthority(self, clock);
    }

    public IssuedCertificate certificate() {
        return self;
    }

    /**
     * Issues a leaf certificate, with an RSA key when it is for clients and an EC key otherwise.
     *
     * @param commonName   the subject's CN, e.g. {@code system:kube-scheduler}
     * @param organization the subject's O (Kubernetes reads it as the group), or null
     * @param usages       server and/or client authentication
     * @param names        subject alternative names: IP addresses as literals, anything else as DNS names
     */
    public IssuedCertificate issue(
            String commonName, String organization, List<Usage> usages, List<String> names, Duration validity) {
        return issue(
                commonName,
                organization,
                usages,
                names,
                validity,
                usages.contains(Usage.CLIENT) ? KeyType.RSA : KeyType.EC);
    }

    public IssuedCertificate issue(
            String commonName,
            String organization,
            List<Usage> usages,
            List<String> names,
            Duration validity,
            KeyType keyType) {
        KeyPair keys = newKeyPair(keyType);
        List<KeyPurposeId> purposes = new ArrayList<>();
        if (usages.contains(Usage.SERVER)) {
            purposes.add(KeyPurposeId.id_kp_serverAuth);
        }
        if (usages.contains(Usage.CLIENT)) {
            purposes.add(KeyPurposeId.id_kp_clientAuth);
        }
        try {
            JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = builder(
                            name(commonName, organization),
                            X500Name.getInstance(
                                    self.certificate().getSubjectX500Principal().getEncoded()),
                            keys,
                            clock.instant(),
                            validity,
                            random)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(
                            Extension.keyUsage,
                            true,
                            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(
                            Extension.extendedKeyUsage,
                            false,
                            new ExtendedKeyUsage(purposes.toArray(KeyPurposeId[]::new)))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(keys.getPublic()))
                    .addExtension(
                            Extension.authorityKeyIdentifier,
                            false,
                            utils.createAuthorityKeyIdentifier(self.certificate()));
            if (!names.isEmpty()) {
                builder.addExtension(
                        Extension.subjectAlternativeName,
                        false,
                        new GeneralNames(names.stream()
                                .map(CertificateAuthority::generalName)
                                .toArray(GeneralName[]::new)));
            }
            return new IssuedCertificate(sign(builder, self.keys()), keys);
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue a certificate for " + commonName, e);
        }
    }

    private static X509v3CertificateBuilder builder(
            X500Name subject,
            X500Name issuer,
            KeyPair subjectKeys,
            Instant now,
            Duration validity,
            SecureRandom random) {
        return new JcaX509v3CertificateBuilder(
                issuer,
                new BigInteger(127, random).add(BigInteger.ONE),
                Date.from(now.minus(SKEW)),
                Date.from(now.plus(validity)),
                subject,
                subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuerKeys)
            throws GeneralSecurityException {
        String algorithm = "RSA".equals(issuerKeys.getPrivate().getAlgorithm()) ? "SHA256withRSA" : "SHA256withECDSA";
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(
                            builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKeys.getPrivate())));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static X500Name name(String commonName, String organization) {
        X500NameBuilder name = new X500NameBuilder(BCStyle.INSTANCE);
        if (organization != null) {
            name.addRDN(BCStyle.O, organization);
        }
        return name.addRDN(BCStyle.CN, commonName).build();
    }

    /** An IP literal as an iPAddress name, anything else as a dNSName. */
    private static GeneralName generalName(String name) {
        boolean ip = name.matches("[0-9.]+") || name.contains(":");
        return new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name);
    }

    private static KeyPair newKeyPair(KeyType type) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(type == KeyType.RSA ? "RSA" : "EC");
            if (type == KeyType.RSA) {
                generator.initialize(2048);
            } else {
                generator.initialize(new ECGenParameterSpec("secp256r1"));
            }
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make " + type + " keys", e);
        }
    }
}
