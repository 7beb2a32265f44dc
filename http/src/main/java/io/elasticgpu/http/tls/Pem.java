package io.elasticgpu.http.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/** PEM armour (RFC 7468) for DER that is not a certificate or private key of ours, e.g. a public key. */
public final class Pem {

    private Pem() {}

    public static String encode(String label, byte[] der) {
        StringWriter out = new StringWriter();
        try (PemWriter writer = new PemWriter(out)) {
            writer.writeObject(new PemObject(label, der));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
