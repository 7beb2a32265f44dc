package io.elasticgpu.scheduler.binding;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.PodGrant;

/**
 * One pod's reservation in a node's ledger: which pod, what it holds, and when it was reserved (Unix millis).
 *
 * @param pod namespace/name
 */
record LedgerEntry(String pod, long reservedAtMillis, PodGrant allocation) {

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    LedgerEntry {
        requireNonNull(pod, "pod");
        requireNonNull(allocation, "allocation");
    }

    String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static LedgerEntry fromJson(String json) {
        try {
            return JSON.readValue(json, LedgerEntry.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unreadable ledger entry: " + e.getOriginalMessage(), e);
        }
    }

    String namespace() {
        return pod.substring(0, pod.indexOf('/'));
    }

    String name() {
        return pod.substring(pod.indexOf('/') + 1);
    }
}
