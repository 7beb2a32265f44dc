package io.elasticgpu.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A user's request for GPU, as a PersistentVolumeClaim is for storage: whole cards or a slice, of one
 * {@link ElasticGPUClass}; bound to one {@link ElasticGPU}. Namespaced ({@code kubectl get egpuc}); once Bound its
 * spec cannot change (a CEL transition rule on the whole object, since it reads the status). A claim asking TFLOPS
 * may name their precision ({@code spec.tflopsPrecision}, only with {@code elasticgpu.io/gpu-tflops}).
 */
@Group(ElasticGPUClass.GROUP)
@Version(ElasticGPUClass.VERSION)
@Kind("ElasticGPUClaim")
@Plural("elasticgpuclaims")
@ShortNames("egpuc")
@ValidationRule(
        value = "!has(oldSelf.status) || !has(oldSelf.status.phase) || oldSelf.status.phase != 'Bound'"
                + " || self.spec == oldSelf.spec",
        message = ValidationMessages.CLAIM_SPEC_IMMUTABLE_WHEN_BOUND)
@ValidationRule(
        value = "!has(self.spec.tflopsPrecision) || 'elasticgpu.io/gpu-tflops' in self.spec.resources.requests",
        message = ValidationMessages.TFLOPS_PRECISION_WITHOUT_TFLOPS)
@AdditionalPrinterColumn(name = "Class", jsonPath = ".spec.elasticGPUClassName")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(name = "ElasticGPU", jsonPath = ".status.elasticGPUName")
@AdditionalPrinterColumn(name = "Requests", jsonPath = ".spec.resources.requests")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class ElasticGPUClaim extends CustomResource<ElasticGPUClaimSpec, ElasticGPUClaimStatus> implements Namespaced {

    /** A claim {@code namespace/name} of class {@code className} asking {@code requests} (resource name → quantity). */
    public static ElasticGPUClaim of(
            String namespace,
            String name,
            String className,
            java.util.Map<String, io.fabric8.kubernetes.api.model.Quantity> requests) {
        ElasticGPUClaim claim = new ElasticGPUClaim();
        claim.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .build());
        claim.setSpec(new ElasticGPUClaimSpec());
        claim.getSpec().setElasticGPUClassName(className);
        claim.getSpec().setResources(new ElasticGPUResources());
        claim.getSpec().getResources().setRequests(requests);
        return claim;
    }
}
