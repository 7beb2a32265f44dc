package io.elasticgpu.bench.arena;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Values taken from HAMi's own tests, one per line of a resource under {@code /arena} ({@code #} lines say where from).
 * */
final class HamiFixtures {

    private HamiFixtures() {}

    static List<String> lines(String resource) throws IOException {
        try (InputStream in = HamiFixtures.class.getResourceAsStream("/arena/" + resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .toList();
        }
    }
}
