package io.elasticgpu.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** What a handler answers; {@link HttpEndpoint} writes it. */
public record HttpResponse(int status, String contentType, byte[] body, Map<String, String> headers) {

    public static final String TEXT = "text/plain; charset=utf-8";
    public static final String JSON = "application/json";

    public static HttpResponse text(int status, String body) {
        return new HttpResponse(status, TEXT, body.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    public static HttpResponse json(byte[] body) {
        return new HttpResponse(200, JSON, body, Map.of());
    }

    public static HttpResponse of(String contentType, byte[] body) {
        return new HttpResponse(200, contentType, body, Map.of());
    }

    public static HttpResponse redirect(String location) {
        return new HttpResponse(302, TEXT, new byte[0], Map.of("Location", location));
    }

    public HttpResponse withHeader(String name, String value) {
        Map<String, String> all = new java.util.LinkedHashMap<>(headers);
        all.put(name, value);
        return new HttpResponse(status, contentType, body, Map.copyOf(all));
    }
}
