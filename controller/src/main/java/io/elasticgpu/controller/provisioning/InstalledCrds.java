package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Whether the three Elastic GPU CRDs are served; the controller needs all three and installs none. */
public final class InstalledCrds {

    /** Where the CRDs are, for the message. */
    public static final String HOW_TO_INSTALL =
            "kubectl apply -f api/target/classes/META-INF/fabric8/ (the CRDs the api module generates)";

    private InstalledCrds() {}

    /** Empty when all three are served, else the message saying which are missing and how to install them. */
    public static Optional<String> missing(KubernetesClient client) {
        List<String> missing = new ArrayList<>();
        check(client, ElasticGPUClass.class, "elasticgpuclasses.elasticgpu.io", missing);
        check(client, ElasticGPUClaim.class, "elasticgpuclaims.elasticgpu.io", missing);
        check(client, ElasticGPU.class, "elasticgpus.elasticgpu.io", missing);
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("the ElasticGPU CRDs are not installed (missing: %s): %s"
                .formatted(String.join(", ", missing), HOW_TO_INSTALL));
    }

    private static void check(
            KubernetesClient client, Class<? extends HasMetadata> type, String crd, List<String> missing) {
        try {
            client.resources(type)
                    .inAnyNamespace()
                    .list(new ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                missing.add(crd);
                return;
            }
            throw e;
        }
    }
}
