package io.elasticgpu.api.v1alpha1;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.function.Predicate;

/**
 * The JSON of our annotations (a {@link PodGrant}, a {@link NodeInventory}): unknown fields are ignored, so that
 * an older component reads what a newer one wrote; anything else that is wrong is an IllegalArgumentException that
 * names the annotation and says what was expected.
 */
final class AnnotationJson {

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private AnnotationJson() {}

    static String write(Object value, String what) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + what, e);
        }
    }

    /**
     * @param complete what a value must have to be used; {@code expected} says it in words
     * @throws IllegalArgumentException when {@code json} is not valid JSON or not {@code complete}
     */
    static <T> T read(String json, Class<T> type, String what, Predicate<T> complete, String expected) {
        try {
            T value = JSON.readValue(json, type);
            if (value == null || !complete.test(value)) {
                throw new IllegalArgumentException("%s: expected %s, got %s".formatted(what, expected, json));
            }
            return value;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(what + ": not valid JSON: " + e.getOriginalMessage(), e);
        }
    }
}
