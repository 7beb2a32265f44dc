package io.elasticgpu.controller.webhook;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The few DER encodings (ITU-T X.690) an X.509 certificate needs, each returning the complete TLV. Copied, trimmed,
 * from the e2e module's {@code pki.Der}: the webhook must not depend on the test harness.
 */
final class DerWriter {

    private DerWriter() {
    }

    static byte[] tlv(int tag, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
        out.write(tag);
        int n = value.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(value);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... items) {
        return tlv(0x30, concat(items));
    }

    static byte[] set(byte[]... items) {
        return tlv(0x31, concat(items));
    }

    /** A context-specific constructed tag {@code [n]}, EXPLICIT around {@code content}. */
    static byte[] explicit(int n, byte[] content) {
        return tlv(0xa0 | n, content);
    }

    /** A context-specific primitive tag {@code [n]}, IMPLICIT: the value's own tag is replaced. */
    static byte[] implicit(int n, byte[] value) {
        return tlv(0x80 | n, value);
    }

    static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray());
    }

    static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
    }

    static byte[] octets(byte[] value) {
        return tlv(0x04, value);
    }

    static byte[] bits(byte[] value, int unusedBits) {
        byte[] content = new byte[value.length + 1];
        content[0] = (byte) unusedBits;
        System.arraycopy(value, 0, content, 1, value.length);
        return tlv(0x03, content);
    }

    static byte[] utf8(String value) {
        return tlv(0x0c, value.getBytes(StandardCharsets.UTF_8));
    }

    /** UTCTime until 2049, GeneralizedTime from 2050, as RFC 5280 requires. */
    static byte[] time(ZonedDateTime when) {
        ZonedDateTime utc = when.withZoneSameInstant(ZoneOffset.UTC);
        if (utc.getYear() < 2050) {
            return tlv(0x17, DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").format(utc).getBytes(StandardCharsets.US_ASCII));
        }
        return tlv(0x18, DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").format(utc).getBytes(StandardCharsets.US_ASCII));
    }

    /** An OBJECT IDENTIFIER from its dotted form, e.g. {@code 2.5.4.3}. */
    static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            base128(out, Long.parseLong(arcs[i]));
        }
        return tlv(0x06, out.toByteArray());
    }

    private static void base128(ByteArrayOutputStream out, long value) {
        int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
        for (int g = groups - 1; g >= 0; g--) {
            int b = (int) ((value >>> (7 * g)) & 0x7f);
            out.write(g == 0 ? b : b | 0x80);
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
