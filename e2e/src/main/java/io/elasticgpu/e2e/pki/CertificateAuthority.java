package io.elasticgpu.e2e.pki;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A self-signed ECDSA P-256 certificate authority that issues serving and client certificates. Every certificate
 * carries subject and authority key identifiers; leaves carry the extended key usages asked for and their subject
 * alternative names (DNS names, IP addresses).
 */
public final class CertificateAuthority {

    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String ORGANIZATION = "2.5.4.10";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String SUBJECT_KEY_ID = "2.5.29.14";
    private static final String AUTHORITY_KEY_ID = "2.5.29.35";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    /** What a leaf certificate is for. */
    public enum Usage {
        SERVER, CLIENT
    }

    /**
     * The key a leaf gets. Client certificates use RSA: every client reads RSA keys, while some (fabric8's
     * kubeconfig loader among them) cannot read ECDSA keys in PKCS #8.
     */
    public enum KeyType {
        EC, RSA
    }

    private final IssuedCertificate self;
    private final InstantSource clock;
    private final SecureRandom random = new SecureRandom();

    private CertificateAuthority(IssuedCertificate self, InstantSource clock) {
        this.self = self;
        this.clock = clock;
    }

    /** A new authority named {@code commonName}, valid from now (less a minute of clock skew) for {@code validity}. */
    public static CertificateAuthority create(String commonName, Duration validity, InstantSource clock) {
        KeyPair keys = newKeyPair();
        byte[] name = name(commonName, null);
        byte[] keyId = keyId(keys);
        List<byte[]> extensions = List.of(
                extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                // digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, the last 2 bits unused
                extension(KEY_USAGE, true, Der.bits(new byte[] {(byte) 0x84}, 2)),
                extension(SUBJECT_KEY_ID, false, Der.octets(keyId)));
        X509Certificate cert = sign(name, name, keys, keys, keyId, extensions, validity, clock, new SecureRandom());
        return new CertificateAuthority(new IssuedCertificate(cert, keys), clock);
    }

    public IssuedCertificate certificate() {
        return self;
    }

    /**
     * Issues a leaf certificate.
     *
     * @param commonName    the subject's CN, e.g. {@code system:kube-scheduler}
     * @param organization  the subject's O (Kubernetes reads it as the group), or null
     * @param usages        server and/or client authentication
     * @param names         subject alternative names: IP addresses as literals, anything else as DNS names
     */
    public IssuedCertificate issue(String commonName, String organization, List<Usage> usages, List<String> names,
                                   Duration validity) {
        return issue(commonName, organization, usages, names, validity, usages.contains(Usage.CLIENT) ? KeyType.RSA : KeyType.EC);
    }

    public IssuedCertificate issue(String commonName, String organization, List<Usage> usages, List<String> names,
                                   Duration validity, KeyType keyType) {
        KeyPair keys = keyType == KeyType.RSA ? newRsaKeyPair() : newKeyPair();
        List<byte[]> extensions = new ArrayList<>();
        extensions.add(extension(BASIC_CONSTRAINTS, true, Der.sequence()));
        // digitalSignature (bit 0) and keyEncipherment (bit 2): 1010 0000, the last 5 bits unused
        extensions.add(extension(KEY_USAGE, true, Der.bits(new byte[] {(byte) 0xa0}, 5)));
        List<byte[]> purposes = new ArrayList<>();
        if (usages.contains(Usage.SERVER)) {
            purposes.add(Der.oid(SERVER_AUTH));
        }
        if (usages.contains(Usage.CLIENT)) {
            purposes.add(Der.oid(CLIENT_AUTH));
        }
        extensions.add(extension(EXTENDED_KEY_USAGE, false, Der.sequence(purposes.toArray(byte[][]::new))));
        if (!names.isEmpty()) {
            extensions.add(extension(SUBJECT_ALT_NAME, false, Der.sequence(names.stream()
                    .map(CertificateAuthority::generalName).toArray(byte[][]::new))));
        }
        extensions.add(extension(SUBJECT_KEY_ID, false, Der.octets(keyId(keys))));
        X509Certificate cert = sign(name(commonName, organization), issuerName(), keys, self.keys(),
                keyId(self.keys()), extensions, validity, clock, random);
        return new IssuedCertificate(cert, keys);
    }

    private byte[] issuerName() {
        return self.certificate().getSubjectX500Principal().getEncoded();
    }

    private static X509Certificate sign(byte[] subject, byte[] issuer, KeyPair subjectKeys, KeyPair issuerKeys,
                                        byte[] authorityKeyId, List<byte[]> extensions, Duration validity,
                                        InstantSource clock, SecureRandom random) {
        List<byte[]> all = new ArrayList<>(extensions);
        all.add(extension(AUTHORITY_KEY_ID, false, Der.sequence(Der.implicit(0, authorityKeyId))));
        ZonedDateTime now = clock.instant().atZone(ZoneOffset.UTC);
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)),
                Der.integer(new BigInteger(126, random).add(BigInteger.ONE)),
                algorithm,
                issuer,
                Der.sequence(Der.time(now.minusMinutes(1)), Der.time(now.plus(validity))),
                subject,
                subjectKeys.getPublic().getEncoded(),
                Der.explicit(3, Der.sequence(all.toArray(byte[][]::new))));
        try {
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(issuerKeys.getPrivate());
            signer.update(tbs);
            byte[] der = Der.sequence(tbs, algorithm, Der.bits(signer.sign()));
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate", e);
        }
    }

    private static byte[] name(String commonName, String organization) {
        List<byte[]> rdns = new ArrayList<>();
        if (organization != null) {
            rdns.add(Der.set(Der.sequence(Der.oid(ORGANIZATION), Der.utf8(organization))));
        }
        rdns.add(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(commonName))));
        return Der.sequence(rdns.toArray(byte[][]::new));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value))
                : Der.sequence(Der.oid(oid), Der.octets(value));
    }

    private static byte[] generalName(String name) {
        if (name.matches("[0-9.]+") || name.contains(":")) {
            try {
                return Der.implicit(7, InetAddress.getByName(name).getAddress()); // iPAddress [7]
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("not an IP address: " + name, e);
            }
        }
        return Der.implicit(2, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII)); // dNSName [2]
    }

    /** A SHA-1 of the encoded public key: unique per key, which is all RFC 5280 asks of a key identifier. */
    private static byte[] keyId(KeyPair keys) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(keys.getPublic().getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair newRsaKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make RSA keys", e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make P-256 keys", e);
        }
    }
}
