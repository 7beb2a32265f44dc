package io.elasticgpu.e2e.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.elasticgpu.e2e.cluster.ControlPlane;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The three CRDs the api module generates, applied as built to a control plane; shared by the e2e tests. */
public final class GeneratedCrds {

    private static final List<String> CRDS = List.of("elasticgpuclasses", "elasticgpuclaims", "elasticgpus");

    private GeneratedCrds() {
    }

    /** Applies the three CRDs (server-side) and waits until they are Established and served. */
    public static void apply(ControlPlane controlPlane) {
        try (KubernetesClient client = controlPlane.newClient()) {
            for (String plural : CRDS) {
                CustomResourceDefinition crd = generated(plural);
                client.resource(crd).forceConflicts().serverSideApply();
                client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                        .waitUntilCondition(c -> c != null && c.getStatus() != null && c.getStatus().getConditions()
                                .stream().anyMatch(x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
                                30, TimeUnit.SECONDS);
            }
            // Discovery can lag the Established condition by a moment.
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() ->
                    client.resources(ElasticGPU.class).list() != null && client.resources(ElasticGPUClass.class).list() != null
                            && client.resources(ElasticGPUClaim.class).inAnyNamespace().list() != null);
        }
    }

    /** The CRD as the build wrote it into the api jar. */
    public static CustomResourceDefinition generated(String plural) {
        String resource = "META-INF/fabric8/" + plural + ".elasticgpu.io-v1.yml";
        try (InputStream in = ElasticGPU.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as("%s on the classpath (built by the api module)", resource).isNotNull();
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
