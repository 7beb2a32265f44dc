/**
 * The contract between Elastic GPU's components and with users, version v1alpha1: extended resource names, node
 * label keys, annotation keys, the JSON of the per-card node inventory, and the custom resources ElasticGPUClass,
 * ElasticGPUClaim and ElasticGPU (their CRDs are generated from these classes by the build). Every component reads
 * these names from here; this package must never import placement, scheduler, node or controller code.
 */
package io.elasticgpu.api.v1alpha1;
