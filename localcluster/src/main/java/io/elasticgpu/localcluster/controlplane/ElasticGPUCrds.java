package io.elasticgpu.localcluster.controlplane;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUClass;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The three CRDs the api module generates, applied as built to a control plane; for the demo and the e2e tests. */
public final class ElasticGPUCrds {

    private static final List<String> CRDS = List.of("elasticgpuclasses", "elasticgpuclaims", "elasticgpus");

    private ElasticGPUCrds() {}

    /** Applies the three CRDs (server-side) and waits until they are Established and served. */
    public static void apply(ControlPlane controlPlane) {
        try (KubernetesClient client = controlPlane.newClient()) {
            apply(client);
        }
    }

    /** Applies the three CRDs (server-side) with {@code client} and waits until they are Established and served. */
    public static void apply(KubernetesClient client) {
        for (String plural : CRDS) {
            CustomResourceDefinition crd = generated(plural);
            client.resource(crd).forceConflicts().serverSideApply();
            client.apiextensions()
                    .v1()
                    .customResourceDefinitions()
                    .withName(crd.getMetadata().getName())
                    .waitUntilCondition(ElasticGPUCrds::established, 30, TimeUnit.SECONDS);
        }
        // Discovery can lag the Established condition by a moment.
        if (!Poll.until(
                () -> client.resources(ElasticGPU.class).list() != null
                        && client.resources(ElasticGPUClass.class).list() != null
                        && client.resources(ElasticGPUClaim.class)
                                        .inAnyNamespace()
                                        .list()
                                != null,
                Duration.ofSeconds(20),
                Duration.ofMillis(100))) {
            throw new IllegalStateException("the ElasticGPU CRDs are Established but not served after 20 s");
        }
    }

    /** A new CRD's status can come before its conditions do: that is "not yet", not an error. */
    public static boolean established(CustomResourceDefinition crd) {
        return crd != null
                && crd.getStatus() != null
                && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The CRD as the build wrote it into the api jar. */
    public static CustomResourceDefinition generated(String plural) {
        String resource = "META-INF/fabric8/" + plural + ".elasticgpu.io-v1.yml";
        try (InputStream in = ElasticGPU.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath; build the api module first");
            }
            return Serialization.unmarshal(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
