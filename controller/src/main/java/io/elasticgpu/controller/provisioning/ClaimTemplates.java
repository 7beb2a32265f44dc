package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.ClaimAsks;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.api.v1alpha1.InvalidAskException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the ResourceClaimTemplate of each ElasticGPUClaim whose class serves it through DRA ({@link
 * ClaimAsks#template}),
 * once per claim (by uid): the webhook points the pods using the claim at it. The template is owned by the claim, so
 * the garbage collector deletes it with the claim; a claim's requests do not change after it is made.
 */
final class ClaimTemplates {

    private static final Logger LOG = LoggerFactory.getLogger(ClaimTemplates.class);

    private final KubernetesClient client;
    private final Set<String> made = new HashSet<>();

    ClaimTemplates(KubernetesClient client) {
        this.client = client;
    }

    /** @param claims every ElasticGPUClaim there is now: the uids of the others are forgotten */
    void ensure(Collection<ElasticGPUClaim> claims, Collection<ElasticGPUClass> classes) {
        // A deleted claim's template went with it; remembering its uid would only grow.
        made.retainAll(claims.stream().map(c -> c.getMetadata().getUid()).collect(Collectors.toSet()));
        Map<String, ElasticGPUClass> byName = classes.stream()
                .collect(Collectors.toMap(c -> c.getMetadata().getName(), Function.identity(), (a, b) -> a));
        for (ElasticGPUClaim claim : claims) {
            String uid = claim.getMetadata().getUid();
            String className = claim.getSpec() == null ? null : claim.getSpec().getElasticGPUClassName();
            if (uid == null
                    || made.contains(uid)
                    || className == null
                    || !ClaimAsks.throughDra(byName.get(className))) {
                continue;
            }
            try {
                client.resource(ClaimAsks.template(claim)).create();
            } catch (InvalidAskException e) {
                LOG.warn(
                        "ElasticGPUClaim {}/{} of DRA class {}: no ResourceClaimTemplate made: {}",
                        claim.getMetadata().getNamespace(),
                        claim.getMetadata().getName(),
                        className,
                        e.getMessage());
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) { // 409: made before (by this replica before a restart, or another)
                    throw e;
                }
            }
            made.add(uid);
        }
    }
}
