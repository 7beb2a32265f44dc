package io.elasticgpu.controller.webhook;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The webhook's own ECDSA P-256 certificate authority, in memory only: it issues the serving certificate the
 * kube-apiserver checks against the {@code caBundle}. The same approach as the e2e module's
 * {@code pki.CertificateAuthority}, trimmed to server certificates.
 */
final class WebhookAuthority {

    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String SUBJECT_KEY_ID = "2.5.29.14";
    private static final String AUTHORITY_KEY_ID = "2.5.29.35";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

    /** A certificate and its key pair. */
    record Issued(X509Certificate certificate, KeyPair keys) {
    }

    private final Issued self;
    private final SecureRandom random = new SecureRandom();

    private WebhookAuthority(Issued self) {
        this.self = self;
    }

    /** A new authority named {@code commonName}, valid from {@code now} (less a minute of clock skew) for {@code validity}. */
    static WebhookAuthority create(String commonName, Instant now, Duration validity) {
        KeyPair keys = newKeyPair();
        byte[] name = name(commonName);
        byte[] keyId = keyId(keys);
        List<byte[]> extensions = List.of(
                extension(BASIC_CONSTRAINTS, true, DerWriter.sequence(DerWriter.bool(true))),
                // digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, the last 2 bits unused
                extension(KEY_USAGE, true, DerWriter.bits(new byte[] {(byte) 0x84}, 2)),
                extension(SUBJECT_KEY_ID, false, DerWriter.octets(keyId)));
        X509Certificate cert = sign(name, name, keys, keys, keyId, extensions, now, validity, new SecureRandom());
        return new WebhookAuthority(new Issued(cert, keys));
    }

    X509Certificate certificate() {
        return self.certificate();
    }

    /** The authority's certificate as PEM: what goes, base64 once more, into a webhook's {@code caBundle}. */
    String certificatePem() {
        try {
            String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(self.certificate().getEncoded());
            return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A serving certificate for {@code names}: IP addresses as literals, anything else as DNS names; the first name
     * is also the subject's CN.
     */
    Issued issueServing(List<String> names, Instant now, Duration validity) {
        KeyPair keys = newKeyPair();
        List<byte[]> extensions = new ArrayList<>();
        extensions.add(extension(BASIC_CONSTRAINTS, true, DerWriter.sequence()));
        // digitalSignature (bit 0) and keyEncipherment (bit 2): 1010 0000, the last 5 bits unused
        extensions.add(extension(KEY_USAGE, true, DerWriter.bits(new byte[] {(byte) 0xa0}, 5)));
        extensions.add(extension(EXTENDED_KEY_USAGE, false, DerWriter.sequence(DerWriter.oid(SERVER_AUTH))));
        extensions.add(extension(SUBJECT_ALT_NAME, false, DerWriter.sequence(names.stream()
                .map(WebhookAuthority::generalName).toArray(byte[][]::new))));
        extensions.add(extension(SUBJECT_KEY_ID, false, DerWriter.octets(keyId(keys))));
        X509Certificate cert = sign(name(names.getFirst()), self.certificate().getSubjectX500Principal().getEncoded(),
                keys, self.keys(), keyId(self.keys()), extensions, now, validity, random);
        return new Issued(cert, keys);
    }

    private static X509Certificate sign(byte[] subject, byte[] issuer, KeyPair subjectKeys, KeyPair issuerKeys,
                                        byte[] authorityKeyId, List<byte[]> extensions, Instant now, Duration validity,
                                        SecureRandom random) {
        List<byte[]> all = new ArrayList<>(extensions);
        all.add(extension(AUTHORITY_KEY_ID, false, DerWriter.sequence(DerWriter.implicit(0, authorityKeyId))));
        ZonedDateTime from = now.atZone(ZoneOffset.UTC);
        byte[] algorithm = DerWriter.sequence(DerWriter.oid(ECDSA_WITH_SHA256));
        byte[] tbs = DerWriter.sequence(
                DerWriter.explicit(0, DerWriter.integer(BigInteger.TWO)),
                DerWriter.integer(new BigInteger(126, random).add(BigInteger.ONE)),
                algorithm,
                issuer,
                DerWriter.sequence(DerWriter.time(from.minusMinutes(1)), DerWriter.time(from.plus(validity))),
                subject,
                subjectKeys.getPublic().getEncoded(),
                DerWriter.explicit(3, DerWriter.sequence(all.toArray(byte[][]::new))));
        try {
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(issuerKeys.getPrivate());
            signer.update(tbs);
            byte[] der = DerWriter.sequence(tbs, algorithm, DerWriter.bits(signer.sign(), 0));
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate", e);
        }
    }

    private static byte[] name(String commonName) {
        return DerWriter.sequence(DerWriter.set(DerWriter.sequence(DerWriter.oid(COMMON_NAME), DerWriter.utf8(commonName))));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? DerWriter.sequence(DerWriter.oid(oid), DerWriter.bool(true), DerWriter.octets(value))
                : DerWriter.sequence(DerWriter.oid(oid), DerWriter.octets(value));
    }

    private static byte[] generalName(String name) {
        if (name.matches("[0-9.]+") || name.contains(":")) {
            try {
                return DerWriter.implicit(7, InetAddress.getByName(name).getAddress()); // iPAddress [7]
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("not an IP address: " + name, e);
            }
        }
        return DerWriter.implicit(2, name.getBytes(StandardCharsets.US_ASCII)); // dNSName [2]
    }

    /** A SHA-1 of the encoded public key: unique per key, which is all RFC 5280 asks of a key identifier. */
    private static byte[] keyId(KeyPair keys) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(keys.getPublic().getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
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
