package io.elasticgpu.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How ElasticGPUs of one kind are made, as a StorageClass says how volumes are: the provisioner, its parameters,
 * what happens to an ElasticGPU when its claim goes, and when a claim is bound. Cluster-scoped ({@code kubectl get
 * egpuclass}); it has no status. fabric8's CRD generator reads this class: a plain class, not a record.
 */
@Group(ElasticGPUClass.GROUP)
@Version(ElasticGPUClass.VERSION)
@Kind("ElasticGPUClass")
@Plural("elasticgpuclasses")
@ShortNames("egpuclass")
@AdditionalPrinterColumn(name = "Provisioner", jsonPath = ".spec.provisioner")
@AdditionalPrinterColumn(name = "Reclaim Policy", jsonPath = ".spec.reclaimPolicy")
@AdditionalPrinterColumn(name = "Binding Mode", jsonPath = ".spec.bindingMode")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class ElasticGPUClass extends CustomResource<ElasticGPUClassSpec, Void> {

    /** The API group of the three Elastic GPU kinds. */
    public static final String GROUP = "elasticgpu.io";
    /** Their only version so far. */
    public static final String VERSION = "v1alpha1";

    /** A class named {@code name} whose GPUs come from {@code provisioner}, reclaimed per {@code policy}. */
    public static ElasticGPUClass of(
            String name, ElasticGPUClassSpec.Provisioner provisioner, ElasticGPUClassSpec.ReclaimPolicy policy) {
        ElasticGPUClass gpuClass = new ElasticGPUClass();
        gpuClass.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(name)
                .build());
        gpuClass.setSpec(new ElasticGPUClassSpec());
        gpuClass.getSpec().setProvisioner(provisioner);
        gpuClass.getSpec().setReclaimPolicy(policy);
        return gpuClass;
    }
}
