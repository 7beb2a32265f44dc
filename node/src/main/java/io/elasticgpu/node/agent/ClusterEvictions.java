package io.elasticgpu.node.agent;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;

/**
 * Evictions of pods on this node through the Eviction API ({@code pods/eviction}, policy/v1), as {@code kubectl drain}
 * evicts: the API server honours the pod's PodDisruptionBudgets and grace period. Only the pod with the given uid is
 * evicted (a precondition), never one created again under its name. Each eviction is one call: a refusal is answered
 * at once, never retried here and never thrown.
 */
final class ClusterEvictions {

    static final String BUDGET =
            "HTTP 429 Too Many Requests: a PodDisruptionBudget of the pod allows no disruption now";

    private final KubernetesClient client;

    /** @param client the caller's, which it closes; this class uses a view of it that shares its connections */
    ClusterEvictions(KubernetesClient client) {
        // fabric8 retries a 429 with a growing backoff (seconds, more with Retry-After): the caller (the isolation
        // loop) would wait through them. It tries again when it next has reason to instead.
        this.client = client.newClient(
                        new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                                .withRequestRetryBackoffLimit(0)
                                .build())
                .adapt(KubernetesClient.class);
    }

    PodEviction evict(String namespace, String name, String uid) {
        Eviction eviction = new EvictionBuilder()
                .withNewMetadata()
                .withNamespace(namespace)
                .withName(name)
                .endMetadata()
                .withDeleteOptions(new DeleteOptionsBuilder()
                        .withNewPreconditions()
                        .withUid(uid)
                        .endPreconditions()
                        .build())
                .build();
        try {
            // fabric8 answers false for 429, which the API server sends while a disruption budget forbids it
            return client.pods().inNamespace(namespace).withName(name).evict(eviction)
                    ? new PodEviction.Evicted()
                    : new PodEviction.Refused(BUDGET);
        } catch (KubernetesClientException e) {
            String message = e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage()
                    : e.getMessage();
            return new PodEviction.Refused(e.getCode() > 0 ? "HTTP %d: %s".formatted(e.getCode(), message) : message);
        }
    }
}
