package io.elasticgpu.core.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The tables shipped in the core jar: {@code gpu-models.csv} and {@code mig-profiles.csv}, beside their readers. */
final class ShippedText {

    private ShippedText() {}

    /** The text of {@code name}, a file of this package in the core jar. */
    static String read(String name) {
        try (InputStream in = ShippedText.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
