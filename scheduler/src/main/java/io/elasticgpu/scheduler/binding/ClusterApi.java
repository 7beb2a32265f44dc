package io.elasticgpu.scheduler.binding;

import java.util.Map;
import java.util.Optional;

/**
 * The few API calls the extender makes: binding's, and one node annotation for requeueing. Implementations must be
 * thread-safe; each call is one request to the API server
 * (or, in tests and benchmarks, to an in-memory stand-in with the same semantics).
 */
public interface ClusterApi {

    /** A node's ledger: pod UID to entry JSON, and the version to update it from (null when it does not exist yet). */
    record Ledger(Map<String, String> entries, String version) {
        public Ledger {
            entries = Map.copyOf(entries);
        }
    }

    /**
     * A pod as the API server sees it now.
     *
     * @param live exists with this uid and is not terminal
     * @param node the node it is bound to, or null
     */
    record PodView(boolean live, String node) {
        public static final PodView GONE = new PodView(false, null);
    }

    Ledger readLedger(String node);

    /**
     * Replaces a node's ledger if nobody changed it since {@code version} was read (null: creates it if absent).
     *
     * @return the ledger's new version, or empty when someone else changed it first: read again and retry
     */
    Optional<String> writeLedger(String node, Map<String, String> entries, String version);

    PodView pod(String namespace, String name, String uid);

    /**
     * Binds the pod with {@code uid} to {@code node} and sets {@code annotations} on it, in one write: the API server
     * copies a Binding's annotations onto the pod as it binds it, so the pod is never bound without them and a bind
     * that fails leaves them unwritten.
     *
     * @throws AlreadyBoundException when the pod is bound already (to the node it names); nothing is written
     * @throws ApiException          when the pod is gone or the API refuses
     */
    void bind(String namespace, String name, String uid, String node, Map<String, String> annotations);

    /**
     * Sets annotation {@code key} to {@code value} on a node, leaving the rest of the node alone.
     *
     * @throws ApiException when the node is gone or the API refuses
     */
    void annotateNode(String node, String key, String value);

    /** The pod was bound before this call: by an earlier attempt, or by someone else. */
    final class AlreadyBoundException extends RuntimeException {
        private final String node;

        public AlreadyBoundException(String node) {
            super("already bound to " + node);
            this.node = node;
        }

        public String node() {
            return node;
        }
    }

    /** A refused API call, with the API server's words. */
    final class ApiException extends RuntimeException {
        public ApiException(String message) {
            super(message);
        }

        public ApiException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
