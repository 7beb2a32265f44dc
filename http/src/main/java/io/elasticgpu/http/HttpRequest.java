package io.elasticgpu.http;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** A request as a handler sees it: the body already read, within the route's limit. */
public record HttpRequest(String method, URI uri, Map<String, List<String>> headers, byte[] body) {

    public String path() {
        return uri.getPath();
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
