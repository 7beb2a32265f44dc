package io.elasticgpu.e2e.pki;

import java.util.Base64;

/** PEM armour (RFC 7468): base64 in 64-character lines between BEGIN and END lines of a label. */
public final class Pem {

    private Pem() {
    }

    public static String encode(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }
}
