package io.elasticgpu.localcluster.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The pinned upstream versions, read from {@code e2e/versions.env} (shared with {@code e2e/bin/build-binaries}). */
public record Versions(String kubernetes, String etcd, String kwok) {

    public static Versions read(Path file) {
        Map<String, String> values = entries(file);
        return new Versions(
                require(values, "KUBERNETES_VERSION", file),
                require(values, "ETCD_VERSION", file),
                require(values, "KWOK_VERSION", file));
    }

    /**
     * Every {@code KEY=value} line of {@code file} (comments and blank lines skipped), for the other programs it pins.
     * */
    public static Map<String, String> entries(Path file) {
        Map<String, String> values = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String l = line.strip();
                if (!l.isEmpty() && !l.startsWith("#") && l.contains("=")) {
                    values.put(
                            l.substring(0, l.indexOf('=')).strip(),
                            l.substring(l.indexOf('=') + 1).strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return values;
    }

    private static String require(Map<String, String> values, String key, Path file) {
        String v = values.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalStateException("%s does not set %s".formatted(file, key));
        }
        return v;
    }
}
