package io.elasticgpu.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * What the fuzz tests of every HTTP surface share: request bodies that are random bytes, or valid examples broken
 * the ways real callers break them (cut short, a value of the wrong type, a field nulled, brackets swapped,
 * garbage inserted), and a client that sends them over a real connection.
 */
public final class HttpFuzz {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpFuzz() {}

    /** Random bytes, random text, and each valid example mutated (and sometimes the example itself). */
    public static Arbitrary<byte[]> bodies(List<String> validExamples) {
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<byte[]> text = Arbitraries.strings().ofMaxLength(200).map(s -> s.getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> mutated = Combinators.combine(
                        Arbitraries.of(validExamples),
                        Arbitraries.integers().between(0, 6),
                        Arbitraries.integers().between(0, Integer.MAX_VALUE),
                        Arbitraries.strings().ofMaxLength(12))
                .as(HttpFuzz::mutate)
                .map(s -> s.getBytes(StandardCharsets.UTF_8));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, random), net.jqwik.api.Tuple.of(1, text), net.jqwik.api.Tuple.of(6, mutated));
    }

    static String mutate(String json, int kind, int position, String garbage) {
        int at = json.isEmpty() ? 0 : position % json.length();
        return switch (kind) {
            case 0 -> json.substring(0, at); // cut short
            case 1 -> json.substring(0, at) + garbage + json.substring(at); // garbage inserted
            // a number becomes a string; quoted, since garbage may hold a dollar sign or a backslash
            case 2 -> json.replaceFirst(":\\s*-?\\d+", Matcher.quoteReplacement(":\"" + garbage + "\""));
            case 3 -> json.replaceFirst(":\\s*(\"[^\"]*\"|\\{|\\[)", ":null,\"x\":$1"); // a value nulled
            case 4 -> json.replace('{', '[').replace('}', ']'); // objects become arrays
            case 5 -> json.replaceFirst(":\\s*\"[^\"]*\"", ":" + (position % 1000)); // a string becomes a number
            default -> json;
        };
    }

    /** The methods a caller might use, right or wrong. */
    public static Arbitrary<String> methods() {
        return Arbitraries.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");
    }

    /**
     * The property every read-only surface keeps: any request is answered below 500, and the server still answers
     * {@code GET healthz} after it.
     */
    public static void answersBelow500AndKeepsServing(URI base, String method, String path, byte[] body) {
        assertThat(status(base, method, path, body)).as("%s /%s", method, path).isBetween(200, 499);
        assertThat(status(base, "GET", "healthz", new byte[0])).isEqualTo(200);
    }

    /**
     * The status of one request to {@code base + path} (base ends with "/"), or -1 when the server gave no answer at
     * all. */
    public static int status(URI base, String method, String path, byte[] body) {
        try {
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(30))
                    .method(method, BodyPublishers.ofByteArray(body))
                    .build();
            return CLIENT.send(request, BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
