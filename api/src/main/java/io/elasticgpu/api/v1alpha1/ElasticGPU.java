package io.elasticgpu.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One usable piece of GPU, as a PersistentVolume is of storage: a whole card or a slice of one, on one node, from
 * one source; bound to at most one {@link ElasticGPUClaim} and, for the cluster view, the pod and container using
 * it. Cluster-scoped ({@code kubectl get egpu}).
 */
@Group(ElasticGPUClass.GROUP)
@Version(ElasticGPUClass.VERSION)
@Kind("ElasticGPU")
@Plural("elasticgpus")
@ShortNames("egpu")
@AdditionalPrinterColumn(name = "Node", jsonPath = ".spec.nodeName")
// Exactly one source is set (a CEL rule), so this wildcard prints one index.
@AdditionalPrinterColumn(name = "Card", jsonPath = ".spec.source.*.index")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase")
@AdditionalPrinterColumn(name = "Claim Namespace", jsonPath = ".spec.claimRef.namespace")
@AdditionalPrinterColumn(name = "Claim", jsonPath = ".spec.claimRef.name")
@AdditionalPrinterColumn(name = "Pod", jsonPath = ".spec.podRef.name")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class ElasticGPU extends CustomResource<ElasticGPUSpec, ElasticGPUStatus> {}
