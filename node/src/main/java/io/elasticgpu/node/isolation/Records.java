package io.elasticgpu.node.isolation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * How isolation keeps what a restarted agent must find on the host: JSON files written whole (through a temporary
 * file moved over the old one, so a crash leaves the old or the new, never half), read back leniently, and the short
 * names it derives from what it holds.
 */
final class Records {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Records() {}

    /** The file's value, or empty when it is missing or not one. */
    static <T> Optional<T> read(Path file, Class<T> type) {
        try {
            return Optional.of(JSON.readValue(file.toFile(), type));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Writes {@code value} as {@code file}'s whole content, atomically. */
    static void write(Path file, Object value) {
        try {
            Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), value);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write %s: %s".formatted(file, e.getMessage()), e);
        }
    }

    /** 16 hex digits of {@code text}'s SHA-256: a short name that only that text gives. */
    static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
