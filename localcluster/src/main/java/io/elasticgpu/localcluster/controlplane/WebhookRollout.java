package io.elasticgpu.localcluster.controlplane;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The apiserver starts calling a new or changed MutatingWebhookConfiguration a moment after it is written; until
 * then pods go in unmutated. Used by the demo and the e2e tests that create pods through the admission webhook.
 */
public final class WebhookRollout {

    private WebhookRollout() {}

    /**
     * Creates {@code pods.apply(n)} (n = 0, 1, …, a fresh pod each try) in {@code namespace} until one comes back
     * {@code mutated}; deletes the ones that did not.
     *
     * @throws IllegalStateException when none is mutated within {@code timeout}
     */
    public static Pod createOnceMutated(
            KubernetesClient client,
            String namespace,
            IntFunction<Pod> pods,
            Predicate<Pod> mutated,
            Duration timeout) {
        AtomicInteger tries = new AtomicInteger();
        AtomicReference<Pod> result = new AtomicReference<>();
        boolean done = Poll.until(
                () -> {
                    Pod created = client.pods()
                            .inNamespace(namespace)
                            .resource(pods.apply(tries.getAndIncrement()))
                            .create();
                    if (mutated.test(created)) {
                        result.set(created);
                        return true;
                    }
                    client.pods()
                            .inNamespace(namespace)
                            .resource(created)
                            .withGracePeriod(0)
                            .delete();
                    return false;
                },
                timeout,
                Duration.ofMillis(300));
        if (!done) {
            throw new IllegalStateException("the apiserver did not call the admission webhook within " + timeout + " ("
                    + tries.get() + " pods tried)");
        }
        return result.get();
    }

    /** Whether the pod's first container has a limit for {@code resource}: what the claims webhook adds. */
    public static Predicate<Pod> hasLimit(String resource) {
        return p -> {
            var resources = p.getSpec().getContainers().getFirst().getResources();
            return resources != null
                    && resources.getLimits() != null
                    && resources.getLimits().containsKey(resource);
        };
    }
}
